import { describe, expect, it } from 'vitest';
import { makeSessionOperations } from '../../functions/api/session-operations.ts';
import type { ApiRequest } from '../../shared/http/api-types.ts';
import { routeKeyOf } from '../../shared/http/routes.ts';

const signInRequest = (overrides: Partial<ApiRequest> = {}): ApiRequest => ({
  identity: { sub: 'alice', tenant: 'acme', role: 'admin' },
  session: { via: 'bearer', expires_at: '2026-11-23T18:00:00.000Z' },
  headers: { authorization: 'Bearer header.payload.signature' },
  params: {},
  query: {},
  body: undefined,
  requestId: 'r1',
  cursorKeys: [],
  ...overrides,
});

describe('session operations as deployed in AWS (secure cookie)', () => {
  const operations = makeSessionOperations({ secureCookie: true });

  it('marks the session cookie Secure and expires it with the token', async () => {
    const response = await operations[routeKeyOf('POST', '/api/session')](signInRequest());

    expect(response).toEqual({
      status: 204,
      cookies: ['session=header.payload.signature; HttpOnly; SameSite=Strict; Path=/; Expires=Mon, 23 Nov 2026 18:00:00 GMT; Secure'],
    });
  });

  it('clears it with the same attributes', async () => {
    const response = await operations[routeKeyOf('DELETE', '/api/session')](signInRequest({ session: undefined, headers: {} }));

    expect(response.cookies).toEqual([
      'session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure',
    ]);
  });

  it('refuses a sign-in that the authorizer verified from the cookie, not the header', async () => {
    await expect(
      operations[routeKeyOf('POST', '/api/session')](signInRequest({ session: { via: 'cookie', expires_at: '2026-11-23T18:00:00.000Z' } })),
    ).rejects.toThrow(/Authorization: Bearer/);
  });
});
