import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../shared/auth/session-token.ts';
import { routes } from '../../functions/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { SESSION_KEY, startTestService, type TestService } from '../helpers/local-service.ts';

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

  it('signs a browser in once through the printed sign-in URL, as an admin of tenant local', async () => {
    const url = await service.runtime.signInUrl();
    expect(url.startsWith(`${service.runtime.url}/#token=`)).toBe(true);
    const token = new URL(url).hash.slice('#token='.length);

    const first = await service.call('/api/session', { method: 'POST', token });
    const me = await service.call('/api/me', { token, cookie: true });
    const second = await service.call('/api/session', { method: 'POST', token });

    expect(first.status).toBe(204);
    expect(me.body).toMatchObject({ tenant: 'local', role: 'admin' });
    expect(second.status).toBe(401);
    expect(second.body.error.message).toMatch(/already used/);
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
