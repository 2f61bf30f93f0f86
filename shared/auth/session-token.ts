import { createHmac } from 'node:crypto';
import { parseCookie } from 'cookie';
import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import { UnauthenticatedError } from '../domain/errors.ts';
import { Identity } from '../domain/identity.ts';

const ALGORITHM = 'HS256';
/** Clock skew tolerated between the token's minter and this verifier. */
const CLOCK_TOLERANCE_SECONDS = 30;

function keyBytes(key: string): Uint8Array {
  if (key.length < 32) throw new Error('the session key must be at least 32 characters');
  return new TextEncoder().encode(key);
}

/**
 * The keys a verifier accepts: one key, or the current key first and the previous one during a
 * rotation (docs/auth-in-aws.md). A token names its key by `kid`.
 */
export type SessionKeys = string | readonly string[];

const keyIds = new Map<string, string>();

/**
 * The `kid` of a key: derived from the key itself (an HMAC of a fixed label, 16 base64url
 * characters), so the secret stays one plain string, a rotation needs no id bookkeeping, and the
 * id tells nothing about the key.
 */
export function sessionKeyId(key: string): string {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = createHmac('sha256', keyBytes(key)).update('scan-service session key id').digest('base64url').slice(0, 16);
    keyIds.set(key, id);
  }
  return id;
}

/**
 * The token names a key (`kid`) that none of the verifier's keys has: the keys may have been
 * rotated since the verifier read them. Its message is the generic one, on purpose.
 */
export class UnknownSessionKeyError extends UnauthenticatedError {}

/** Mints a session token (local `npm run session`, tests). */
export async function signSessionToken(
  identity: Identity,
  key: string,
  options: { ttlSeconds?: number; now?: Date } = {},
): Promise<string> {
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT({ tenant: identity.tenant, role: identity.role })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT', kid: sessionKeyId(key) })
    .setSubject(identity.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (options.ttlSeconds ?? 8 * 3600))
    .sign(keyBytes(key));
}

/** A verified session: who, and until when (the token's `exp`, ISO 8601). */
export type Session = Identity & { expires_at: string };

/** The key among `keys` that the token's `kid` names; throws when the token names none of them. */
function keyOfToken(token: string, keys: SessionKeys): string {
  let kid: unknown;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch {
    throw new UnauthenticatedError(INVALID_TOKEN);
  }
  // A token without a key id was not minted by signSessionToken: no key to look up.
  if (typeof kid !== 'string') throw new UnauthenticatedError(INVALID_TOKEN);
  const key = (typeof keys === 'string' ? [keys] : keys).find((candidate) => sessionKeyId(candidate) === kid);
  if (key === undefined) throw new UnknownSessionKeyError(INVALID_TOKEN);
  return key;
}

const INVALID_TOKEN = 'the session token is not valid';

/**
 * Verifies a session token: HS256 only, signed by the key its `kid` names among `keys`, `exp`
 * required, claims checked against the Identity schema. Every failure is an UnauthenticatedError
 * with a reason safe to show; UnknownSessionKeyError when the `kid` is none of `keys`.
 */
export async function verifySessionToken(token: string, keys: SessionKeys, now: Date = new Date()): Promise<Session> {
  const key = keyOfToken(token, keys);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keyBytes(key), {
      algorithms: [ALGORITHM],
      requiredClaims: ['exp', 'sub'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new UnauthenticatedError('the session has expired');
    throw new UnauthenticatedError(INVALID_TOKEN);
  }
  const identity = Identity.safeParse({ sub: payload.sub, tenant: payload.tenant, role: payload.role });
  if (!identity.success) throw new UnauthenticatedError('the session token lacks a valid tenant or role');
  return { ...identity.data, expires_at: new Date(Number(payload.exp) * 1000).toISOString() };
}

/**
 * The session credentials of a request: every `session` cookie value (distinct, in order) and the
 * Bearer token. Cookies are parsed by the `cookie` library, which never throws on a malformed
 * percent-encoding (the value is then kept as sent and fails verification: a 401, not a 500).
 */
export function sessionCredentials(
  headers: Record<string, string | undefined>,
  cookies: string[] = [],
): { cookieTokens: string[]; bearer: string | null } {
  const cookieTokens: string[] = [];
  for (const header of [...cookies, headers.cookie ?? '']) {
    // One parse per `name=value` pair: parseCookie keeps only the first of repeated names.
    for (const pair of header.split(';')) {
      const value = parseCookie(pair).session;
      if (value !== undefined && value !== '' && !cookieTokens.includes(value)) cookieTokens.push(value);
    }
  }
  const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  return { cookieTokens, bearer: match ? match[1] : null };
}
