import { describe, expect, it } from 'vitest';
import { sessionRoutes } from '../../functions/api/session-operations.ts';
import type { RouteRequest } from '../../shared/http/routes.ts';

type Request = RouteRequest<Record<string, string>, unknown>;

const signInRequest = (overrides: Partial<Request> = {}): Request => ({
  identity: { sub: 'alice', tenant: 'acme', role: 'admin' },
  session: { via: 'bearer', expires_at: '2026-11-23T18:00:00.000Z' },
  headers: { authorization: 'Bearer header.payload.signature' },
  params: {},
  id: '',
  query: {},
  body: undefined,
  requestId: 'r1',
  cursorKeys: [],
  ...overrides,
});

describe('session operations as deployed in AWS (secure cookie)', () => {
  const deps = { secureCookie: true };
  const handle = (method: string, path: string, request: Request) => {
    const route = sessionRoutes.find((candidate) => candidate.method === method && candidate.path === path);
    if (!route) throw new Error(`no route ${method} ${path}`);
    return route.handle(request, deps);
  };

  it('marks the session cookie Secure and expires it with the token', async () => {
    const response = await handle('POST', '/api/session', signInRequest());

    expect(response).toEqual({
      status: 204,
      cookies: ['session=header.payload.signature; HttpOnly; SameSite=Strict; Path=/; Expires=Mon, 23 Nov 2026 18:00:00 GMT; Secure'],
    });
  });

  it('clears it with the same attributes', async () => {
    const response = await handle('DELETE', '/api/session', signInRequest({ session: undefined, headers: {} }));

    expect(response.cookies).toEqual([
      'session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure',
    ]);
  });

  it('refuses a sign-in that the authorizer verified from the cookie, not the header', async () => {
    await expect(
      handle('POST', '/api/session', signInRequest({ session: { via: 'cookie', expires_at: '2026-11-23T18:00:00.000Z' } })),
    ).rejects.toThrow(/Authorization: Bearer/);
  });
});
