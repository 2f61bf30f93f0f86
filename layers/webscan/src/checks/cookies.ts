/**
 * The cookie rules (DESIGN §17 web.cookie.*), judged on every Set-Cookie of the crawl: Secure over
 * HTTPS, HttpOnly on session-like names, SameSite everywhere. A cookie is one finding per rule
 * however many responses set it (its name is the fingerprint key).
 */
import type { Ledger } from '../ledger.ts';
import type { Page, PassiveCheck } from '../page.ts';

export interface SetCookie {
  name: string;
  attributes: Map<string, string>;
}

export function parseSetCookie(header: string): SetCookie | undefined {
  const [pair, ...rest] = header.split(';');
  const equals = pair.indexOf('=');
  const name = (equals < 0 ? '' : pair.slice(0, equals)).trim();
  if (name === '') return undefined;
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    const key = (at < 0 ? part : part.slice(0, at)).trim().toLowerCase();
    if (key) attributes.set(key, at < 0 ? '' : part.slice(at + 1).trim());
  }
  return { name, attributes };
}

const SESSION_LIKE = /sess|sid\b|^sid|token|auth|jwt|login|remember|csrf|xsrf|^id$|user/i;

/** A cookie being deleted (expired or Max-Age=0) protects nothing and leaks nothing. */
function isDeletion(cookie: SetCookie): boolean {
  const maxAge = cookie.attributes.get('max-age');
  if (maxAge !== undefined && Number(maxAge) <= 0) return true;
  const expires = cookie.attributes.get('expires');
  return expires !== undefined && Date.parse(expires) < Date.UTC(2000, 0, 1);
}

export const cookiesCheck: PassiveCheck = {
  inspect(page: Page, ledger: Ledger): void {
    const { response, path } = page;
    const https = page.url.protocol === 'https:';
    for (const header of response.setCookies) {
      const cookie = parseSetCookie(header);
      if (!cookie || isDeletion(cookie)) continue;
      const evidence = { cookie: cookie.name, attributes: [...cookie.attributes.keys()] };
      if (https) {
        ledger.examined('web.cookie.no_secure', path);
        if (!cookie.attributes.has('secure'))
          ledger.found('web.cookie.no_secure', {
            path,
            key: cookie.name,
            detail: `cookie ${cookie.name} is set over HTTPS without Secure`,
            evidence,
          });
      }
      if (SESSION_LIKE.test(cookie.name)) {
        ledger.examined('web.cookie.no_httponly', path);
        if (!cookie.attributes.has('httponly'))
          ledger.found('web.cookie.no_httponly', {
            path,
            key: cookie.name,
            detail: `session-like cookie ${cookie.name} is set without HttpOnly`,
            evidence,
          });
      }
      ledger.examined('web.cookie.no_samesite', path);
      const sameSite = cookie.attributes.get('samesite')?.toLowerCase();
      if (sameSite === undefined || (sameSite === 'none' && !cookie.attributes.has('secure'))) {
        ledger.found('web.cookie.no_samesite', {
          path,
          key: cookie.name,
          detail:
            sameSite === undefined ? `cookie ${cookie.name} has no SameSite` : `cookie ${cookie.name} is SameSite=None without Secure`,
          evidence,
        });
      }
    }
  },
};
