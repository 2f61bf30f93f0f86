/**
 * DESIGN §17 web.cors.permissive. Every crawl request carries `Origin: https://<nonce>.invalid`,
 * an origin nobody owns, so every response says whether the site reflects an arbitrary origin;
 * one more request sends `Origin: null`. Only a reflection (or `null`) together with
 * `Access-Control-Allow-Credentials: true` fires.
 */
import type { Ledger } from '../ledger.ts';
import type { Page, PassiveCheck } from '../page.ts';

export function makeCorsCheck(probeOrigin: string): PassiveCheck & { judge(page: Page, ledger: Ledger, sent: string): void } {
  const check = {
    judge(page: Page, ledger: Ledger, sent: string): void {
      const { headers } = page.response;
      ledger.examined('web.cors.permissive', page.path);
      const allowOrigin = headers['access-control-allow-origin']?.trim();
      const credentials = headers['access-control-allow-credentials']?.trim().toLowerCase() === 'true';
      if (!credentials || allowOrigin === undefined) return;
      if (allowOrigin === sent || allowOrigin === 'null') {
        ledger.found('web.cors.permissive', {
          path: page.path,
          key: `${page.url.origin} ${allowOrigin === 'null' ? 'null' : 'reflected'}`,
          detail: `Access-Control-Allow-Origin: ${allowOrigin} with credentials, for a request from ${sent}`,
          evidence: { origin_sent: sent, allow_origin: allowOrigin, allow_credentials: true },
        });
      }
    },
    inspect(page: Page, ledger: Ledger): void {
      check.judge(page, ledger, probeOrigin);
    },
  };
  return check;
}
