import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../shared/auth/session-token.ts';
import { routes } from '../../functions/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { SESSION_KEY, startTestService, type TestService } from '../helpers/local-service.ts';

describe('sign-in links across restarts', () => {
  it('keeps a spent code spent and an unspent code good after npm start restarts on the same data directory', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sign-in-'));
    try {
      const before = await startTestService({ dataDir });
      const codeOf = async () => new URL(await before.runtime.signInUrl()).hash.slice('#code='.length);
      const spent = await codeOf();
      const kept = await codeOf();
      expect((await before.call('/api/session/code', { method: 'POST', body: { code: spent } })).status).toBe(204);
      await before.stop();
      const stored = await readFile(join(dataDir, 'sign-in-codes.json'), 'utf8');

      const after = await startTestService({ dataDir });
      try {
        expect((await after.call('/api/session/code', { method: 'POST', body: { code: spent } })).status).toBe(401);
        expect((await after.call('/api/session/code', { method: 'POST', body: { code: kept } })).status).toBe(204);
        expect((await after.call('/api/session/code', { method: 'POST', body: { code: kept } })).status).toBe(401);
      } finally {
        await after.stop();
      }
      // What the data directory keeps is the codes' hashes, never a code.
      expect(stored).not.toContain(kept);
      expect(stored).not.toContain(spent);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('session endpoints (UI sign-in)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  const sessionCookie = (headers: Headers) => headers.getSetCookie().find((value) => value.startsWith('session='));
  const origin = () => ({ origin: service.runtime.url });

  it('turns a Bearer token into an HttpOnly, SameSite=Strict cookie that expires with the token', async () => {
    const token = await service.token('acme', 'operator');

    const reply = await service.call('/api/session', { method: 'POST', token });

    expect(reply.status).toBe(204);
    const cookie = sessionCookie(reply.headers)!;
    expect(cookie).toMatch(new RegExp(`^session=${token}; HttpOnly; SameSite=Strict; Path=/; Expires=`));
    const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number;
    expect(new Date(/Expires=([^;]+)/.exec(cookie)![1]).getTime()).toBe(exp * 1000);
    expect(cookie).not.toContain('Secure');
  });

  it('answers /api/me with who the cookie is, and until when', async () => {
    const token = await service.token('acme', 'viewer');
    const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number;

    const reply = await service.call('/api/me', { token, cookie: true });

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ sub: 'viewer@acme', tenant: 'acme', role: 'viewer', expires_at: new Date(exp * 1000).toISOString() });
  });

  it('answers /api/me 401 without a session', async () => {
    const reply = await service.call('/api/me');

    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('unauthenticated');
  });

  it('refuses to sign in with a bad token and sets no cookie', async () => {
    const forged = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, 'another-key-another-key-another-key-0123');

    const reply = await service.call('/api/session', { method: 'POST', token: forged });

    expect(reply.status).toBe(401);
    expect(sessionCookie(reply.headers)).toBeUndefined();
  });

  it('refuses to sign in with only a cookie: there is nothing to exchange', async () => {
    const token = await service.token('acme');

    const reply = await service.call('/api/session', { method: 'POST', token, cookie: true, headers: origin() });

    expect(reply.status).toBe(401);
    expect(reply.body.error.message).toMatch(/Authorization: Bearer/);
  });

  it('signs in with a new token even when a stale cookie is still sent', async () => {
    const stale = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, SESSION_KEY, {
      ttlSeconds: 60,
      now: new Date(Date.now() - 3_600_000),
    });
    const fresh = await service.token('acme', 'admin');

    const reply = await service.call('/api/session', { method: 'POST', token: fresh, headers: { cookie: `session=${stale}` } });

    expect(reply.status).toBe(204);
    expect(sessionCookie(reply.headers)).toContain(fresh);
  });

  it('signs out by clearing the cookie, even when the session has expired', async () => {
    const stale = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, SESSION_KEY, {
      ttlSeconds: 60,
      now: new Date(Date.now() - 3_600_000),
    });

    const reply = await service.call('/api/session', { method: 'DELETE', headers: { cookie: `session=${stale}`, ...origin() } });

    expect(reply.status).toBe(204);
    expect(sessionCookie(reply.headers)).toBe(
      'session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    );
  });

  it('signs a browser in once through the printed sign-in link, whose fragment is a one-time code and not a token', async () => {
    const url = await service.runtime.signInUrl();
    expect(url.startsWith(`${service.runtime.url}/#code=`)).toBe(true);
    const code = new URL(url).hash.slice('#code='.length);
    // Not a session token: it authenticates nothing as a Bearer.
    expect(code).not.toContain('.');
    expect((await service.call('/api/me', { token: code })).status).toBe(401);

    const first = await service.call('/api/session/code', { method: 'POST', body: { code } });
    const cookie = sessionCookie(first.headers)!;
    const token = /^session=([^;]+)/.exec(cookie)![1];
    const me = await service.call('/api/me', { token, cookie: true });
    const second = await service.call('/api/session/code', { method: 'POST', body: { code } });

    expect(first.status).toBe(204);
    expect(cookie).toMatch(/; HttpOnly; SameSite=Strict; Path=\/; Expires=/);
    expect(me.body).toMatchObject({ tenant: 'local', role: 'admin' });
    expect(second.status).toBe(401);
    expect(second.body.error.message).toMatch(/already used or has expired/);
    expect(sessionCookie(second.headers)).toBeUndefined();
  });

  it('refuses a malformed or unknown code with a plain message and sets no cookie', async () => {
    const malformed = await service.call('/api/session/code', { method: 'POST', body: { code: 'short' } });
    const unknown = await service.call('/api/session/code', { method: 'POST', body: { code: 'A'.repeat(43) } });

    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain('Paste the whole code from the sign-in link.');
    expect(unknown.status).toBe(401);
    expect(sessionCookie(malformed.headers)).toBeUndefined();
    expect(sessionCookie(unknown.headers)).toBeUndefined();
  });

  it.each([
    ['POST', 'text/plain', 'hello', 415, 'unsupported_media_type'],
    ['POST', 'application/json', '{bad', 400, 'invalid_json'],
    ['POST', 'application/json', 'x'.repeat(70_000), 413, 'payload_too_large'],
    ['DELETE', 'text/plain', 'hello', 415, 'unsupported_media_type'],
    ['DELETE', 'application/json', '{bad', 400, 'invalid_json'],
  ] as const)('answers %s with a %s body it cannot read as the OpenAPI document says (%#)', async (method, type, raw, status, code) => {
    const token = await service.token('acme', 'operator');
    const documented = (
      buildOpenApiDocument('test', routes).paths as Record<string, Record<string, { responses: Record<string, unknown> }>>
    )['/api/session'][method.toLowerCase()].responses;

    const reply = await service.call('/api/session', { method, token, headers: { 'content-type': type }, raw });

    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    expect(Object.keys(documented)).toContain(String(status));
    expect(sessionCookie(reply.headers)).toBeUndefined();
  });
});
