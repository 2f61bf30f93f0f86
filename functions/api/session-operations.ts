import { UnauthenticatedError } from '../../shared/domain/errors.ts';
import type { Me } from '../../shared/domain/identity.ts';
import type { Operation } from '../../shared/http/make-api-handler.ts';
import { routeKeyOf } from '../../shared/http/routes.ts';

export const SESSION_COOKIE = 'session';

export interface SessionOperationsOptions {
  /** `Secure` on the cookie: always in AWS (HTTPS behind CloudFront); off on the local http:// server. */
  secureCookie: boolean;
  /** Called with the token before the cookie is set; throws to refuse it (one-time sign-in links). */
  acceptSignIn?: (token: string) => void;
}

function cookie(value: string, attributes: string[], secure: boolean): string {
  return [`${SESSION_COOKIE}=${value}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', ...attributes, ...(secure ? ['Secure'] : [])].join('; ');
}

/**
 * The UI's sign-in (DESIGN §3, §8): the authorizer has already verified the token, so signing in
 * only turns the Bearer token into the HttpOnly cookie, which expires with the token. Signing out
 * clears the cookie whatever state it is in, so it needs no valid session.
 */
export function makeSessionOperations({ secureCookie, acceptSignIn }: SessionOperationsOptions): Record<string, Operation> {
  return {
    [routeKeyOf('POST', '/api/session')]: async ({ session, headers }) => {
      const token = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
      if (session?.via !== 'bearer' || token === undefined) {
        throw new UnauthenticatedError('sign in with the token in an Authorization: Bearer header');
      }
      acceptSignIn?.(token);
      const expires = new Date(session.expires_at).toUTCString();
      return { status: 204, cookies: [cookie(token, [`Expires=${expires}`], secureCookie)] };
    },
    [routeKeyOf('DELETE', '/api/session')]: async () => ({
      status: 204,
      cookies: [cookie('', ['Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT'], secureCookie)],
    }),
    [routeKeyOf('GET', '/api/me')]: async ({ identity, session }) => ({
      status: 200,
      body: { sub: identity.sub, tenant: identity.tenant, role: identity.role, expires_at: session?.expires_at ?? '' } satisfies Me,
    }),
  };
}
