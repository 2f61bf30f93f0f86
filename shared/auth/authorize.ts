import { DomainError } from '../domain/errors.ts';
import { UnknownSessionKeyError, extractSessionToken, verifySessionToken, type Session, type SessionKeys } from './session-token.ts';

/**
 * The authorizer context handed to the API functions (requestContext.authorizer.lambda).
 * `via` tells the CSRF check whether a browser could have attached the credential by itself.
 */
export type AuthorizerContext =
  | (Session & { via: 'cookie' | 'bearer' })
  | { auth_error: string };

export interface AuthorizeOptions {
  now?: Date;
  /**
   * Called once when the token names a key that `sessionKeys` lacks: the keys as they are now
   * (the AWS authorizer re-reads the secret, in case it was rotated since the cold start).
   */
  refreshKeys?: () => Promise<SessionKeys>;
}

/**
 * Verifies the request's session: the one piece of code behind the AWS Lambda authorizer and the
 * local server. It never rejects: a failure is returned as `auth_error` so that the API answers
 * with its own 401 body (API Gateway's own 401/403 bodies do not follow DESIGN §3).
 */
export async function authorize(
  headers: Record<string, string | undefined>,
  cookies: string[] | undefined,
  sessionKeys: SessionKeys,
  { now, refreshKeys }: AuthorizeOptions = {},
): Promise<AuthorizerContext> {
  const token = extractSessionToken(headers, cookies);
  if (token === null) return { auth_error: 'no session: send the session cookie or a Bearer token' };
  const verify = async () => {
    try {
      return await verifySessionToken(token, sessionKeys, now);
    } catch (error) {
      if (!(error instanceof UnknownSessionKeyError) || !refreshKeys) throw error;
      return verifySessionToken(token, await refreshKeys(), now);
    }
  };
  try {
    const session = await verify();
    const via = /^Bearer\s+\S+$/i.test(headers.authorization ?? '') ? 'bearer' : 'cookie';
    return { ...session, via };
  } catch (error) {
    return { auth_error: error instanceof DomainError ? error.message : 'the session token is not valid' };
  }
}
