import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { bearerOnlyRouteKeys } from '../../functions/api/routes.ts';
import { makeAuthorizerHandler, type SessionKeySource } from '../../functions/authorizer-handler.ts';
import { SESSION_KEYS_MIN_REFRESH_MS, makeSessionKeysLoader } from '../../shared/adapters/secrets/session-key.ts';
import { cursorKeyOf, cursorKeysOf } from '../../shared/auth/authorize.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import { pageCursors } from '../../shared/http/page-cursor.ts';
import { sessionKeyId, signSessionToken, verifySessionToken } from '../../shared/auth/session-token.ts';

const KEY = 'unit-test-session-key-0123456789abcdefghijkl';
const NEXT_KEY = 'unit-test-rotated-key-abcdefghijkl0123456789';
const event = (headers: Record<string, string>, cookies?: string[], routeKey = 'GET /api/scans/') =>
  ({ headers, cookies, routeKey }) as unknown as APIGatewayRequestAuthorizerEventV2;
const fixedKeys = (...keys: string[]): SessionKeySource => ({ keys: async () => keys, refresh: async () => keys });

describe('Lambda authorizer', () => {
  const handler = makeAuthorizerHandler(fixedKeys(KEY), bearerOnlyRouteKeys());

  it('passes the verified identity from the session cookie', async () => {
    const token = await signSessionToken({ sub: 'alice', tenant: 'acme', role: 'operator' }, KEY);

    const result = await handler(event({}, [`theme=dark`, `session=${token}`]));

    expect(result).toEqual({
      isAuthorized: true,
      context: {
        sub: 'alice',
        tenant: 'acme',
        role: 'operator',
        via: 'cookie',
        expires_at: expect.any(String),
        cursor_keys: cursorKeyOf(KEY, 'acme'),
      },
    });
  });

  it('passes the identity from a Bearer header, whatever its case', async () => {
    const token = await signSessionToken({ sub: 'bot', tenant: 'acme', role: 'viewer' }, KEY);

    const result = await handler(event({ Authorization: `Bearer ${token}` }));

    expect(result.context).toEqual({
      sub: 'bot',
      tenant: 'acme',
      role: 'viewer',
      via: 'bearer',
      expires_at: expect.any(String),
      cursor_keys: cursorKeyOf(KEY, 'acme'),
    });
  });

  it('lets the request through with auth_error when the token is bad, so the API can answer 401 itself', async () => {
    const token = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, 'some-other-key-some-other-key-some-other-key');

    const result = await handler(event({ authorization: `Bearer ${token}` }));

    expect(result).toEqual({ isAuthorized: true, context: { auth_error: 'the session token is not valid' } });
  });

  it('reports an expired session as such', async () => {
    const token = await signSessionToken({ sub: 'x', tenant: 'acme', role: 'admin' }, KEY, {
      ttlSeconds: 60,
      now: new Date(Date.now() - 3_600_000),
    });

    const result = await handler(event({}, [`session=${token}`]));

    expect(result.context).toEqual({ auth_error: 'the session has expired' });
  });

  it('takes only the Bearer header on the sign-in route, which replaces whatever cookie is sent', async () => {
    const cookieToken = await signSessionToken({ sub: 'old', tenant: 'acme', role: 'viewer' }, KEY);
    const bearerToken = await signSessionToken({ sub: 'new', tenant: 'acme', role: 'admin' }, KEY, { ttlSeconds: 600 });

    const result = await handler(event({ authorization: `Bearer ${bearerToken}` }, [`session=${cookieToken}`], 'POST /api/session'));
    const elsewhere = await handler(event({ authorization: `Bearer ${bearerToken}` }, [`session=${cookieToken}`], 'GET /api/me'));

    const exp = JSON.parse(Buffer.from(bearerToken.split('.')[1], 'base64url').toString()).exp as number;
    expect(result.context).toEqual({
      sub: 'new',
      tenant: 'acme',
      role: 'admin',
      via: 'bearer',
      expires_at: new Date(exp * 1000).toISOString(),
      cursor_keys: cursorKeyOf(KEY, 'acme'),
    });
    expect(elsewhere.context).toEqual({ auth_error: 'the session cookie and the Bearer token name different sessions' });
  });

  it('answers a malformed session cookie with auth_error, never a throw', async () => {
    for (const cookie of ['session=%E0%A4%A', 'session=%zz', 'session="', 'session', '=;;session=;']) {
      const result = await handler(event({ cookie }));

      expect(result.isAuthorized).toBe(true);
      expect(result.context).toHaveProperty('auth_error');
    }
  });

  it('refuses a cookie and a Bearer token for different tenants, whichever comes first', async () => {
    const mine = await signSessionToken({ sub: 'alice', tenant: 'acme', role: 'admin' }, KEY);
    const planted = await signSessionToken({ sub: 'mallory', tenant: 'evil', role: 'admin' }, KEY);

    const cookieWins = await handler(event({ authorization: `Bearer ${mine}` }, [`session=${planted}`]));
    const bearerWins = await handler(event({ authorization: `Bearer ${planted}` }, [`session=${mine}`]));

    expect(cookieWins.context).toEqual({ auth_error: 'the session cookie and the Bearer token name different sessions' });
    expect(bearerWins.context).toEqual({ auth_error: 'the session cookie and the Bearer token name different sessions' });
  });

  it('accepts a cookie and a Bearer token of the same session, as a cookie request (CSRF applies)', async () => {
    const token = await signSessionToken({ sub: 'alice', tenant: 'acme', role: 'admin' }, KEY);

    const result = await handler(event({ authorization: `Bearer ${token}` }, [`session=${token}`]));

    expect(result.context).toMatchObject({ tenant: 'acme', via: 'cookie' });
  });

  it('refuses two different session cookies', async () => {
    const a = await signSessionToken({ sub: 'alice', tenant: 'acme', role: 'admin' }, KEY);
    const b = await signSessionToken({ sub: 'alice', tenant: 'other', role: 'admin' }, KEY);

    const result = await handler(event({}, [`session=${a}`, `session=${b}`]));

    expect(result.context).toEqual({ auth_error: 'the request carries more than one session cookie' });
  });
});

describe('session key ids and rotation', () => {
  const identity = { sub: 'alice', tenant: 'acme', role: 'operator' } as const;

  it('names the signing key in the token header, by an id that is not the key', async () => {
    const token = await signSessionToken(identity, KEY);

    const header = decodeProtectedHeader(token);

    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: sessionKeyId(KEY) });
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(KEY).not.toContain(String(header.kid));
    expect(sessionKeyId(NEXT_KEY)).not.toBe(sessionKeyId(KEY));
  });

  it('accepts tokens of the current and of the previous key during a rotation', async () => {
    const before = await signSessionToken(identity, KEY);
    const after = await signSessionToken({ ...identity, sub: 'bob' }, NEXT_KEY);

    expect(await verifySessionToken(before, [NEXT_KEY, KEY])).toEqual({ ...identity, expires_at: expect.any(String) });
    expect(await verifySessionToken(after, [NEXT_KEY, KEY])).toEqual({ ...identity, sub: 'bob', expires_at: expect.any(String) });
  });

  it('refuses a token of a key that has left the keyring', async () => {
    const old = await signSessionToken(identity, KEY);

    await expect(verifySessionToken(old, [NEXT_KEY])).rejects.toThrow('the session token is not valid');
  });

  it('refuses a token without a key id, or whose key id names another key than the one that signed it', async () => {
    const bytes = new TextEncoder().encode(KEY);
    const noKid = await new SignJWT({ tenant: 'acme', role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setExpirationTime('1h')
      .sign(bytes);
    const otherBytes = new TextEncoder().encode(NEXT_KEY);
    const lyingKid = await new SignJWT({ tenant: 'acme', role: 'admin' })
      .setProtectedHeader({ alg: 'HS256', kid: sessionKeyId(KEY) })
      .setSubject('x')
      .setExpirationTime('1h')
      .sign(otherBytes);

    await expect(verifySessionToken(noKid, [KEY, NEXT_KEY])).rejects.toThrow('the session token is not valid');
    await expect(verifySessionToken(lyingKid, [KEY, NEXT_KEY])).rejects.toThrow('the session token is not valid');
  });

  it('re-reads the keys once when a token names a key it does not know, then accepts it', async () => {
    let refreshes = 0;
    const handler = makeAuthorizerHandler(
      {
        keys: async () => [KEY],
        refresh: async () => {
          refreshes += 1;
          return [NEXT_KEY, KEY];
        },
      },
      bearerOnlyRouteKeys(),
    );
    const rotated = await signSessionToken(identity, NEXT_KEY);
    const current = await signSessionToken(identity, KEY);

    const first = await handler(event({ authorization: `Bearer ${rotated}` }));
    await handler(event({ authorization: `Bearer ${current}` }));

    expect(first.context).toEqual({
      ...identity,
      via: 'bearer',
      expires_at: expect.any(String),
      cursor_keys: cursorKeysOf([NEXT_KEY, KEY], 'acme'),
    });
    expect(refreshes).toBe(1);
  });
  it('hands out cursor keys under every accepted key, so a cursor sealed before a rotation opens until the old key leaves', async () => {
    const cursorsUnder = async (keys: string[]) => {
      const { context } = await makeAuthorizerHandler(
        fixedKeys(...keys),
        bearerOnlyRouteKeys(),
      )(event({ authorization: `Bearer ${await signSessionToken(identity, keys[0])}` }));
      expect(context).toHaveProperty('cursor_keys');
      return pageCursors('cursor_keys' in context ? context.cursor_keys.split(',') : [], {
        listing: 'schedules',
        filters: { enabled: true },
      });
    };
    const before = (await cursorsUnder([KEY])).seal('store-cursor')!;
    const during = await cursorsUnder([NEXT_KEY, KEY]);
    const after = await cursorsUnder([NEXT_KEY]);

    expect(during.open(before)).toBe('store-cursor');
    expect(after.open(during.seal('next')!)).toBe('next');
    expect(() => after.open(before)).toThrow(ValidationError);
  });
});

describe('session keys loader (Secrets Manager)', () => {
  const secrets = mockClient(SecretsManagerClient);
  const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:session-AbCdEf';
  beforeEach(() => secrets.reset());

  it('reads the current and the previous version once, current first', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: NEXT_KEY });
    secrets.on(GetSecretValueCommand, { SecretId: ARN, VersionStage: 'AWSPREVIOUS' }).resolves({ SecretString: KEY });
    const loader = makeSessionKeysLoader(ARN, secrets as unknown as SecretsManagerClient);

    const [first, second] = await Promise.all([loader.keys(), loader.keys()]);

    expect(first).toEqual([NEXT_KEY, KEY]);
    expect(second).toBe(first);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('reads only the current key of a secret that was never rotated', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: KEY });
    secrets
      .on(GetSecretValueCommand, { SecretId: ARN, VersionStage: 'AWSPREVIOUS' })
      .rejects(new ResourceNotFoundException({ message: 'no such version', $metadata: {} }));

    expect(await makeSessionKeysLoader(ARN, secrets as unknown as SecretsManagerClient).keys()).toEqual([KEY]);
  });

  it('re-reads on refresh at most once per minute', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolvesOnce({ SecretString: KEY }).resolves({ SecretString: NEXT_KEY });
    secrets
      .on(GetSecretValueCommand, { SecretId: ARN, VersionStage: 'AWSPREVIOUS' })
      .rejects(new ResourceNotFoundException({ message: 'none', $metadata: {} }));
    let now = 1_000_000;
    const loader = makeSessionKeysLoader(ARN, secrets as unknown as SecretsManagerClient, () => now);

    await loader.keys();
    const tooSoon = await loader.refresh();
    now += SESSION_KEYS_MIN_REFRESH_MS;
    const refreshed = await loader.refresh();

    expect(tooSoon).toEqual([KEY]);
    expect(refreshed).toEqual([NEXT_KEY]);
    expect(await loader.keys()).toEqual([NEXT_KEY]);
  });

  it('does not keep a failed read: the next invocation tries again', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).rejectsOnce(new Error('throttled')).resolves({ SecretString: KEY });
    secrets
      .on(GetSecretValueCommand, { SecretId: ARN, VersionStage: 'AWSPREVIOUS' })
      .rejects(new ResourceNotFoundException({ message: 'none', $metadata: {} }));
    const loader = makeSessionKeysLoader(ARN, secrets as unknown as SecretsManagerClient);

    await expect(loader.keys()).rejects.toThrow('throttled');
    expect(await loader.keys()).toEqual([KEY]);
  });
});
