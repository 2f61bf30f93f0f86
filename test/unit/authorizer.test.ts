import { describe, expect, it } from 'vitest';
import { makeAuthorizerHandler } from '../../functions/authorizer-handler.ts';
import { signSessionToken } from '../../shared/auth/session-token.ts';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';

const KEY = 'unit-test-session-key-0123456789abcdefghijkl';
const event = (headers: Record<string, string>, cookies?: string[]) => ({ headers, cookies }) as unknown as APIGatewayRequestAuthorizerEventV2;

describe('Lambda authorizer', () => {
  const handler = makeAuthorizerHandler(async () => KEY);

  it('passes the verified identity from the session cookie', async () => {
    const token = await signSessionToken({ sub: 'alice', tenant: 'acme', role: 'operator' }, KEY);

    const result = await handler(event({}, [`theme=dark`, `session=${token}`]));

    expect(result).toEqual({ isAuthorized: true, context: { sub: 'alice', tenant: 'acme', role: 'operator', via: 'cookie', expires_at: expect.any(String) } });
  });

  it('passes the identity from a Bearer header, whatever its case', async () => {
    const token = await signSessionToken({ sub: 'bot', tenant: 'acme', role: 'viewer' }, KEY);

    const result = await handler(event({ Authorization: `Bearer ${token}` }));

    expect(result.context).toEqual({ sub: 'bot', tenant: 'acme', role: 'viewer', via: 'bearer', expires_at: expect.any(String) });
  });

  it('lets the request through with auth_error when the token is bad, so the API can answer 401 itself', async () => {
    const token = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, 'some-other-key-some-other-key-some-other-key');

    const result = await handler(event({ authorization: `Bearer ${token}` }));

    expect(result).toEqual({ isAuthorized: true, context: { auth_error: 'the session token is not valid' } });
  });

  it('reports an expired session as such', async () => {
    const token = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, KEY, { ttlSeconds: 60, now: new Date(Date.now() - 3_600_000) });

    const result = await handler(event({}, [`session=${token}`]));

    expect(result.context).toEqual({ auth_error: 'the session has expired' });
  });

  it('prefers an explicit Bearer header to the cookie, and says so', async () => {
    const cookieToken = await signSessionToken({ sub: 'old', tenant: 'acme', role: 'viewer' }, KEY);
    const bearerToken = await signSessionToken({ sub: 'new', tenant: 'acme', role: 'admin' }, KEY, { ttlSeconds: 600 });

    const result = await handler(event({ authorization: `Bearer ${bearerToken}` }, [`session=${cookieToken}`]));

    const exp = JSON.parse(Buffer.from(bearerToken.split('.')[1], 'base64url').toString()).exp as number;
    expect(result.context).toEqual({ sub: 'new', tenant: 'acme', role: 'admin', via: 'bearer', expires_at: new Date(exp * 1000).toISOString() });
  });
});
