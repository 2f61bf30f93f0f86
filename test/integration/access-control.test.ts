import { SignJWT } from 'jose';
import { sessionKeyId } from '../../shared/auth/session-token.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../shared/domain/identity.ts';
import { SESSION_KEY, freshTenant, scheduleBody, snapshot, startTestService, type TestService } from '../helpers/local-service.ts';

interface Endpoint {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (id: string) => string;
  body?: unknown;
  /** The least role allowed (DESIGN §3). */
  role: Role;
}

const endpoints: Endpoint[] = [
  { name: 'list', method: 'GET', path: () => '/api/scans/schedules/', role: 'viewer' },
  { name: 'create', method: 'POST', path: () => '/api/scans/schedules/', body: scheduleBody({ name: 'by role' }), role: 'operator' },
  { name: 'get', method: 'GET', path: (id) => `/api/scans/schedules/${id}/`, role: 'viewer' },
  { name: 'patch', method: 'PATCH', path: (id) => `/api/scans/schedules/${id}/`, body: { name: 'renamed' }, role: 'operator' },
  { name: 'toggle', method: 'POST', path: (id) => `/api/scans/schedules/${id}/toggle/`, role: 'operator' },
  { name: 'delete', method: 'DELETE', path: (id) => `/api/scans/schedules/${id}/`, role: 'admin' },
  { name: 'run now', method: 'POST', path: (id) => `/api/scans/schedules/${id}/run/`, role: 'operator' },
  {
    name: 'manual scan',
    method: 'POST',
    path: () => '/api/scans/',
    body: { scan_type: 'email_security', target: 'example.com' },
    role: 'operator',
  },
  { name: 'list scans', method: 'GET', path: () => '/api/scans/', role: 'viewer' },
  { name: 'list findings', method: 'GET', path: () => '/api/findings/', role: 'viewer' },
  { name: 'scan types', method: 'GET', path: () => '/api/scan-types/', role: 'viewer' },
];

describe('tenant isolation', () => {
  let service: TestService;
  let victimTenant: string;
  let victimId: string;
  let attackerTenant: string;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    victimTenant = freshTenant('victim');
    attackerTenant = freshTenant('attacker');
    const victim = await service.token(victimTenant, 'admin');
    victimId = (await service.call('/api/scans/schedules/', { method: 'POST', token: victim, body: scheduleBody({ name: 'secret' }) })).body
      .id;
  });

  it.each(endpoints.filter((e) => e.path('X').includes('X')))(
    "answers 404 to $name with another tenant's id and changes nothing",
    async (endpoint) => {
      const attacker = await service.token(attackerTenant, 'admin');
      const before = await snapshot(service.runtime, victimTenant);

      const reply = await service.call(endpoint.path(victimId), { method: endpoint.method, token: attacker, body: endpoint.body });

      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('not_found');
      expect(JSON.stringify(reply.body)).not.toContain('secret');
      expect(await snapshot(service.runtime, victimTenant)).toBe(before);
    },
  );

  it("answers 404 for another tenant's scan and lists none of its scans or findings", async () => {
    const victim = await service.token(victimTenant, 'admin');
    const attacker = await service.token(attackerTenant, 'admin');
    const { body: scan } = await service.call('/api/scans/', {
      method: 'POST',
      token: victim,
      body: { scan_type: 'email_security', target: 'victim.com' },
    });
    await service.runtime.drain();

    const get = await service.call(`/api/scans/${scan.id}/`, { token: attacker });
    const scans = await service.call(`/api/scans/?limit=200`, { token: attacker });
    const findings = await service.call(`/api/findings/?scan_id=${scan.id}`, { token: attacker });
    const bySchedule = await service.call(`/api/scans/?schedule_id=${victimId}`, { token: attacker });

    expect(get.status).toBe(404);
    expect(scans.body.items.some((item: { target: string }) => item.target === 'victim.com')).toBe(false);
    expect(findings.body.items).toEqual([]);
    expect(bySchedule.body.items).toEqual([]);
  });

  it("never lists another tenant's schedules", async () => {
    const attacker = await service.token(attackerTenant, 'admin');
    await service.call('/api/scans/schedules/', { method: 'POST', token: attacker, body: scheduleBody({ name: 'mine' }) });

    const reply = await service.call('/api/scans/schedules/', { token: attacker });

    expect(reply.body.items.map((item: { name: string }) => item.name)).toEqual(['mine']);
  });

  it('takes the tenant from the token even when the body or query names another', async () => {
    const attacker = await service.token(attackerTenant, 'admin');

    const created = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token: attacker,
      body: scheduleBody({ tenant: victimTenant }),
    });
    const listed = await service.call(`/api/scans/schedules/?tenant=${victimTenant}`, { token: attacker });

    expect(created.status).toBe(400);
    expect(listed.status).toBe(400);
  });
});

describe('roles', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  const matrix = endpoints.flatMap((endpoint) =>
    (['viewer', 'operator', 'admin'] as const).map((role) => ({ ...endpoint, caller: role, allowed: rank(role) >= rank(endpoint.role) })),
  );

  it.each(matrix)('$caller on $name: allowed=$allowed', async (entry) => {
    const tenant = freshTenant('roles');
    const admin = await service.token(tenant, 'admin');
    const id = (await service.call('/api/scans/schedules/', { method: 'POST', token: admin, body: scheduleBody() })).body.id;
    const before = await snapshot(service.runtime, tenant);

    const reply = await service.call(entry.path(id), {
      method: entry.method,
      token: await service.token(tenant, entry.caller),
      body: entry.body,
    });

    if (entry.allowed) {
      expect(reply.status).toBeLessThan(300);
    } else {
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('forbidden');
      expect(await snapshot(service.runtime, tenant)).toBe(before);
    }
  });
});

function rank(role: Role): number {
  return { viewer: 0, operator: 1, admin: 2 }[role];
}

describe('authentication and CSRF', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  // Every forged token names the service's key (kid), so each one reaches the check it attacks
  // (signature, expiry, claims, algorithm) instead of stopping at an unknown key id.
  const sign = (claims: Record<string, unknown>, options: { key?: string; alg?: string; exp?: number; kid?: string | null } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({
        alg: options.alg ?? 'HS256',
        ...(options.kid === null ? {} : { kid: options.kid ?? sessionKeyId(SESSION_KEY) }),
      })
      .setSubject('someone')
      .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(options.key ?? SESSION_KEY));

  it.each([
    ['no session at all', async () => null],
    [
      'a token signed with another key',
      async () => sign({ tenant: 'acme', role: 'admin' }, { key: 'another-key-another-key-another-key-1234' }),
    ],
    ['a token signed with the right key but naming no key id', async () => sign({ tenant: 'acme', role: 'admin' }, { kid: null })],
    ['a token naming a key id the service does not have', async () => sign({ tenant: 'acme', role: 'admin' }, { kid: 'AAAAAAAAAAAAAAAA' })],
    ['an expired token', async () => sign({ tenant: 'acme', role: 'admin' }, { exp: Math.floor(Date.now() / 1000) - 3600 })],
    ['a token with a bad tenant', async () => sign({ tenant: 'Acme Corp', role: 'admin' })],
    ['a token with an unknown role', async () => sign({ tenant: 'acme', role: 'root' })],
    ['an HS512 token', async () => sign({ tenant: 'acme', role: 'admin' }, { alg: 'HS512' })],
    [
      'an unsigned token',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"tenant":"acme","role":"admin","sub":"x","exp":9999999999}').toString('base64url')}.`,
    ],
    ['garbage', async () => 'not-a-jwt'],
  ])('answers 401 to %s', async (_name, makeToken) => {
    const reply = await service.call('/api/scans/schedules/', { token: await makeToken() });

    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('unauthenticated');
  });

  it('accepts the session cookie', async () => {
    const reply = await service.call('/api/scans/schedules/', { token: await service.token('acme', 'viewer'), cookie: true });

    expect(reply.status).toBe(200);
  });

  it('refuses a cookie-authenticated mutation from a foreign origin and stores nothing', async () => {
    const tenant = freshTenant('acme');
    const token = await service.token(tenant, 'admin');
    const before = await snapshot(service.runtime, tenant);

    const foreign = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      cookie: true,
      body: scheduleBody(),
      headers: { origin: 'https://evil.example' },
    });
    const missing = await service.call('/api/scans/schedules/', { method: 'POST', token, cookie: true, body: scheduleBody() });

    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
    expect(missing.status).toBe(403);
    expect(await snapshot(service.runtime, tenant)).toBe(before);
  });

  it('accepts a cookie-authenticated mutation from the service origin, and Bearer without Origin', async () => {
    const token = await service.token(freshTenant('acme'), 'admin');

    const sameOrigin = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      cookie: true,
      body: scheduleBody(),
      headers: { origin: service.runtime.url },
    });
    const bearer = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });

    expect(sameOrigin.status).toBe(201);
    expect(bearer.status).toBe(201);
  });
});
