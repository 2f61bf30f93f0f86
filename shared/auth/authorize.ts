import { createHmac } from 'node:crypto';
import { DomainError } from '../domain/errors.ts';
import type { Identity } from '../domain/identity.ts';
import { UnknownSessionKeyError, sessionCredentials, verifySessionToken, type Session, type SessionKeys } from './session-token.ts';

/**
 * The authorizer context handed to the API functions (requestContext.authorizer.lambda).
 * `via` tells the CSRF check whether a browser could have attached the credential by itself.
 * `cursor_keys` authenticate the listing cursors of this tenant (shared/http/page-cursor.ts): one
 * per session key the authorizer accepts, the current one first, comma-separated (a context value
 * is a string); derived from the session keys, so the API functions never read a key itself.
 */
export type AuthorizerContext = (Session & { via: 'cookie' | 'bearer'; cursor_keys: string }) | { auth_error: string };

export interface AuthorizeOptions {
  now?: Date;
  /**
   * Called once when a token names a key that `sessionKeys` lacks: the keys as they are now
   * (the AWS authorizer re-reads the secret, in case it was rotated since the cold start).
   */
  refreshKeys?: () => Promise<SessionKeys>;
  /**
   * Only the Bearer token counts and any cookie is ignored: for signing in (POST /api/session),
   * whose purpose is to replace the cookie, stale or not.
   */
  bearerOnly?: boolean;
}

/** The tenant's cursor key under one session key: HMAC(session key, "cursor/v1/" + tenant). */
export function cursorKeyOf(sessionKey: string, tenant: string): string {
  return createHmac('sha256', sessionKey).update(`cursor/v1/${tenant}`).digest('base64url');
}

/**
 * The tenant's cursor keys under every accepted session key, the current one first (it seals; any
 * opens), as the `cursor_keys` context value. During a session-key rotation a cursor sealed under
 * the previous key still opens; once that key is no longer accepted, its cursors are a 400.
 */
export function cursorKeysOf(sessionKeys: SessionKeys, tenant: string): string {
  return (typeof sessionKeys === 'string' ? [sessionKeys] : sessionKeys).map((key) => cursorKeyOf(key, tenant)).join(',');
}

const sameIdentity = (a: Identity, b: Identity) => a.sub === b.sub && a.tenant === b.tenant && a.role === b.role;

/**
 * Verifies the request's session: the one piece of code behind the AWS Lambda authorizer and the
 * local server. It never rejects: a failure is returned as `auth_error` so that the API answers
 * with its own 401 body (API Gateway's own 401/403 bodies do not follow DESIGN §3).
 *
 * Credentials that disagree are refused rather than ranked: two different `session` cookies, or a
 * cookie and a Bearer token naming different identities, are a 401, so a planted cookie never
 * silently wins over the caller's own token, nor the other way round (docs/hostile-input.md).
 */
export async function authorize(
  headers: Record<string, string | undefined>,
  cookies: string[] | undefined,
  sessionKeys: SessionKeys,
  { now, refreshKeys, bearerOnly = false }: AuthorizeOptions = {},
): Promise<AuthorizerContext> {
  const credentials = sessionCredentials(headers, cookies);
  const cookieTokens = bearerOnly ? [] : credentials.cookieTokens;
  const { bearer } = credentials;
  if (bearerOnly && bearer === null) return { auth_error: 'send the token in an Authorization: Bearer header' };
  if (cookieTokens.length === 0 && bearer === null) return { auth_error: 'no session: send the session cookie or a Bearer token' };
  if (cookieTokens.length > 1) return { auth_error: 'the request carries more than one session cookie' };
  let keys = sessionKeys;
  let refreshed = false;
  const verify = async (token: string) => {
    try {
      return await verifySessionToken(token, keys, now);
    } catch (error) {
      if (!(error instanceof UnknownSessionKeyError) || !refreshKeys || refreshed) throw error;
      refreshed = true;
      keys = await refreshKeys();
      return verifySessionToken(token, keys, now);
    }
  };
  try {
    const fromCookie = cookieTokens.length === 1 ? await verify(cookieTokens[0]) : null;
    const fromBearer = bearer === null ? null : bearer === cookieTokens[0] ? fromCookie : await verify(bearer);
    if (fromCookie && fromBearer && !sameIdentity(fromCookie, fromBearer)) {
      return { auth_error: 'the session cookie and the Bearer token name different sessions' };
    }
    const session = (fromBearer ?? fromCookie)!;
    // With a cookie present, a browser may have attached it by itself: the CSRF check applies.
    return { ...session, via: fromCookie ? 'cookie' : 'bearer', cursor_keys: cursorKeysOf(keys, session.tenant) };
  } catch (error) {
    return { auth_error: error instanceof DomainError ? error.message : 'the session token is not valid' };
  }
}
