/**
 * The two opt-in safe active checks (DESIGN §17, scope `active: true`), each a GET with one query
 * parameter changed: an open redirect (a redirect-like parameter set to https://<nonce>.invalid/
 * comes back in Location; the redirect is never followed), and a reflected marker (an inert
 * `zq<nonce>"'<>` comes back unencoded in HTML). No payload executes anything anywhere.
 */
import type { OriginClient } from '../http-client.ts';
import { isHtml } from '../html.ts';
import type { Ledger } from '../ledger.ts';
import { blockedReason } from './exposure.ts';

const REDIRECT_PARAMETER =
  /^(url|uri|redirect|redirect_uri|redirect_url|redirectto|return|returnto|return_to|returnurl|next|goto|target|dest|destination|continue|forward|out|view|to|r|u)$/i;
const MAX_ACTIVE_REQUESTS = 60;

/** The same-origin URLs with a query the crawl found; each parameter is tried once. */
export async function runActiveChecks(client: OriginClient, ledger: Ledger, urls: readonly URL[], nonce: string): Promise<void> {
  const redirectTarget = `https://${nonce}.invalid/`;
  const marker = `zq${nonce}"'<>`;
  const tried = new Set<string>();
  let sent = 0;
  let redirectTried = 0;
  let reflectTried = 0;
  for (const url of urls) {
    for (const name of new Set(url.searchParams.keys())) {
      const key = `${url.pathname}?${name}`;
      if (tried.has(key)) continue;
      tried.add(key);
      if (sent + 2 > MAX_ACTIVE_REQUESTS) break;
      if (REDIRECT_PARAMETER.test(name)) {
        const probe = new URL(url);
        probe.searchParams.set(name, redirectTarget);
        sent += 1;
        redirectTried += 1;
        try {
          const response = await client.request(probe, { maxBodyBytes: 65_536 });
          const blocked = blockedReason(response);
          if (blocked) ledger.error('web.redirect.open', blocked);
          else {
            ledger.examined('web.redirect.open', key);
            const location = response.headers.location ?? '';
            if (response.status >= 300 && response.status < 400 && location.toLowerCase().startsWith(`https://${nonce}.invalid`)) {
              ledger.found('web.redirect.open', {
                path: `${url.pathname}?${name}=`,
                key,
                detail: `${url.pathname}?${name}= redirects to a URL it is given (Location: ${location.slice(0, 200)})`,
                evidence: { parameter: name, status: response.status, location: location.slice(0, 500) },
              });
            }
          }
        } catch (error) {
          ledger.error('web.redirect.open', `${key}: ${(error as Error).message}`);
        }
      }
      const probe = new URL(url);
      probe.searchParams.set(name, marker);
      sent += 1;
      reflectTried += 1;
      try {
        const response = await client.request(probe, { maxBodyBytes: 1024 * 1024 });
        const blocked = blockedReason(response);
        if (blocked) ledger.error('web.xss.reflected_marker', blocked);
        else {
          ledger.examined('web.xss.reflected_marker', key);
          if (isHtml(response.headers) && response.body.toString('utf8').includes(marker)) {
            ledger.found('web.xss.reflected_marker', {
              path: `${url.pathname}?${name}=`,
              key,
              detail: `${url.pathname}?${name}= is reflected into HTML without encoding`,
              evidence: { parameter: name, status: response.status },
            });
          }
        }
      } catch (error) {
        ledger.error('web.xss.reflected_marker', `${key}: ${(error as Error).message}`);
      }
    }
  }
  if (redirectTried === 0) ledger.skip('web.redirect.open', 'the crawl found no redirect-like query parameter to try');
  else ledger.note('web.redirect.open', `${redirectTried} redirect-like parameter${redirectTried === 1 ? '' : 's'} tried`);
  if (reflectTried === 0) ledger.skip('web.xss.reflected_marker', 'the crawl found no query parameter to try');
  else ledger.note('web.xss.reflected_marker', `${reflectTried} parameter${reflectTried === 1 ? '' : 's'} tried`);
}
