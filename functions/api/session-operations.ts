import * as z from 'zod';
import { UnauthenticatedError } from '../../shared/domain/errors.ts';
import { Me } from '../../shared/domain/identity.ts';
import { declareRoutes } from '../../shared/http/routes.ts';

export const SESSION_COOKIE = 'session';

export interface SessionOperationsOptions {
  /** `Secure` on the cookie: always in AWS (HTTPS behind CloudFront); off on the local http:// server. */
  secureCookie: boolean;
  /**
   * Exchanges a one-time sign-in code (`npm start`'s link) for a session token and its expiry; null
   * for a code that is unknown, used or expired. Absent where no links are printed (AWS).
   */
  exchangeSignInCode?: (code: string) => Promise<{ token: string; expires_at: string } | null>;
}

/** POST /api/session/code body: the code from a sign-in link's fragment (`/#code=…`). */
export const SignInCodeRequest = z.lazy(() =>
  z.strictObject({ code: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'Paste the whole code from the sign-in link.') }),
);

function cookie(value: string, attributes: string[], secure: boolean): string {
  return [`${SESSION_COOKIE}=${value}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', ...attributes, ...(secure ? ['Secure'] : [])].join('; ');
}

/**
 * The UI's sign-in (DESIGN §3, §8): the authorizer has already verified the token, so signing in
 * only turns the Bearer token into the HttpOnly cookie, which expires with the token. Signing out
 * clears the cookie whatever state it is in, so it needs no valid session.
 */
export const sessionRoutes = declareRoutes<SessionOperationsOptions>('meta', (route) => [
  route({
    method: 'POST',
    path: '/api/session',
    role: 'viewer',
    bearerOnly: true,
    summary: 'Sign in: exchange the Bearer token for the HttpOnly session cookie (Set-Cookie)',
    success: { status: 204, description: 'signed in; the cookie expires with the token' },
    // No body is needed, but one that is sent goes through the same checks as on every route.
    errors: [400, 401, 413, 415],
    handle: async ({ session, headers }, { secureCookie }) => {
      const token = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
      if (session?.via !== 'bearer' || token === undefined) {
        throw new UnauthenticatedError('sign in with the token in an Authorization: Bearer header');
      }
      const expires = new Date(session.expires_at).toUTCString();
      return { status: 204, cookies: [cookie(token, [`Expires=${expires}`], secureCookie)] };
    },
  }),
  // A sign-in link carries a one-time code, not a token: a leaked link or scroll-back that was
  // used once signs nobody in, across restarts too (docs/auth.md).
  route({
    method: 'POST',
    path: '/api/session/code',
    authenticated: false,
    role: 'viewer',
    summary: "Sign in with a sign-in link's one-time code: the HttpOnly session cookie (Set-Cookie); the code is spent",
    body: SignInCodeRequest,
    success: { status: 204, description: 'signed in; the cookie expires with the session' },
    errors: [400, 401, 413, 415],
    handle: async ({ body }, { secureCookie, exchangeSignInCode }) => {
      if (!exchangeSignInCode) throw new UnauthenticatedError('this deployment prints no sign-in links: sign in with a token');
      const session = await exchangeSignInCode(body.code);
      if (session === null)
        throw new UnauthenticatedError(
          'this sign-in link was already used or has expired: press Enter in the npm start terminal for a new one',
        );
      const expires = new Date(session.expires_at).toUTCString();
      return { status: 204, cookies: [cookie(session.token, [`Expires=${expires}`], secureCookie)] };
    },
  }),
  // Signing out clears the cookie even when the session has expired, so it asks for none.
  route({
    method: 'DELETE',
    path: '/api/session',
    authenticated: false,
    role: 'viewer',
    summary: 'Sign out: clear the session cookie',
    success: { status: 204, description: 'signed out' },
    errors: [400, 413, 415],
    handle: async (_request, { secureCookie }) => ({
      status: 204,
      cookies: [cookie('', ['Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT'], secureCookie)],
    }),
  }),
  route({
    method: 'GET',
    path: '/api/me',
    role: 'viewer',
    summary: 'Who the session is',
    success: { status: 200, schema: Me, description: 'the session' },
    errors: [401],
    handle: async ({ identity, session }) => ({
      status: 200,
      body: { sub: identity.sub, tenant: identity.tenant, role: identity.role, expires_at: session?.expires_at ?? '' } satisfies Me,
    }),
  }),
]);
