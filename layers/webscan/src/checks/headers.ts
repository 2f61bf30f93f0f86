/**
 * The security-header rules (DESIGN §17 web.headers.*), judged on every response of the crawl:
 * CSP, framing, nosniff and Referrer-Policy on HTML 2xx pages; HSTS on every HTTPS response.
 */
import { isHtml } from '../html.ts';
import type { Ledger } from '../ledger.ts';
import { isSuccess, type Page, type PassiveCheck } from '../page.ts';

const WEAK_SOURCES = ["'unsafe-inline'", "'unsafe-eval'", '*', 'data:', 'http:'];
const UNSAFE_REFERRER = new Set(['unsafe-url', 'no-referrer-when-downgrade']);
const HSTS_MIN_SECONDS = 180 * 24 * 3600;

/** The directives of a CSP (the first occurrence of each, as browsers do), lower-cased. */
export function cspDirectives(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().toLowerCase().split(/\s+/);
    if (name && !directives.has(name)) directives.set(name, values);
  }
  return directives;
}

/** Why a CSP's script sources are weak, or undefined when they are not. */
export function weakScriptSources(policy: string): string[] | undefined {
  const directives = cspDirectives(policy);
  const sources = directives.get('script-src') ?? directives.get('default-src');
  // No script-src nor default-src: scripts are unrestricted by this policy.
  if (!sources) return ['no script-src or default-src'];
  const weak = sources.filter((source) => WEAK_SOURCES.includes(source));
  // 'unsafe-inline' is ignored by browsers when a nonce or hash is present (CSP level 2+).
  const hasNonce = sources.some((source) => /^'(nonce|sha256|sha384|sha512)-/.test(source));
  const counted = hasNonce ? weak.filter((source) => source !== "'unsafe-inline'") : weak;
  return counted.length > 0 ? counted : undefined;
}

export function hstsMaxAge(value: string): number | undefined {
  const match = /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?/i.exec(value);
  return match ? Number(match[1]) : undefined;
}

export const headersCheck: PassiveCheck = {
  inspect(page: Page, ledger: Ledger): void {
    const { response, path } = page;
    const { headers, status } = response;
    if (response.method !== 'GET') return;
    const origin = page.url.origin;
    if (page.url.protocol === 'https:') {
      ledger.examined('web.headers.hsts_missing', path);
      const hsts = headers['strict-transport-security'];
      const maxAge = hsts === undefined ? undefined : hstsMaxAge(hsts);
      if (hsts === undefined || maxAge === undefined || maxAge < HSTS_MIN_SECONDS) {
        ledger.found('web.headers.hsts_missing', {
          path,
          key: origin,
          detail:
            hsts === undefined
              ? `${origin} answers without Strict-Transport-Security`
              : `HSTS max-age is ${maxAge ?? 'missing'}, under 180 days`,
          evidence: { header: hsts ?? null },
        });
      }
    }
    if (!isSuccess(status)) return;
    ledger.examined('web.headers.nosniff_missing', path);
    if ((headers['x-content-type-options'] ?? '').trim().toLowerCase() !== 'nosniff') {
      ledger.found('web.headers.nosniff_missing', {
        path,
        key: origin,
        detail: 'a 2xx response without X-Content-Type-Options: nosniff',
        evidence: { header: headers['x-content-type-options'] ?? null },
      });
    }
    if (!isHtml(headers)) return;
    const csp = headers['content-security-policy'];
    ledger.examined('web.headers.csp_missing', path);
    ledger.examined('web.headers.clickjacking', path);
    ledger.examined('web.headers.referrer_policy_missing', path);
    if (csp === undefined) {
      ledger.found('web.headers.csp_missing', { path, key: origin, detail: 'an HTML page without Content-Security-Policy', evidence: {} });
    } else {
      ledger.examined('web.headers.csp_weak', path);
      const weak = weakScriptSources(csp);
      if (weak)
        ledger.found('web.headers.csp_weak', {
          path,
          key: `${origin} ${csp.slice(0, 300)}`,
          detail: `the CSP's script sources allow ${weak.join(', ')}`,
          evidence: { policy: csp.slice(0, 1000), weak },
        });
    }
    const xfo = (headers['x-frame-options'] ?? '').trim().toLowerCase();
    const frameAncestors = csp === undefined ? undefined : cspDirectives(csp).get('frame-ancestors');
    if (xfo !== 'deny' && xfo !== 'sameorigin' && frameAncestors === undefined) {
      ledger.found('web.headers.clickjacking', {
        path,
        key: origin,
        detail: 'an HTML page without X-Frame-Options and without CSP frame-ancestors',
        evidence: { x_frame_options: headers['x-frame-options'] ?? null },
      });
    }
    const referrer = headers['referrer-policy'];
    // The last recognised token of a comma list is the one a browser uses.
    const effective = referrer
      ?.split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean)
      .at(-1);
    if (effective === undefined || UNSAFE_REFERRER.has(effective)) {
      ledger.found('web.headers.referrer_policy_missing', {
        path,
        key: origin,
        detail: effective === undefined ? 'an HTML page without Referrer-Policy' : `Referrer-Policy ${effective} leaks full URLs`,
        evidence: { header: referrer ?? null },
      });
    }
  },
};
