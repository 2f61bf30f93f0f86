/** DESIGN §17 web.sri.missing: cross-origin scripts and stylesheets without `integrity`. */
import type { Ledger } from '../ledger.ts';
import { isSuccess, type Page, type PassiveCheck } from '../page.ts';

export const sriCheck: PassiveCheck = {
  inspect(page: Page, ledger: Ledger): void {
    if (!page.html || !isSuccess(page.response.status)) return;
    ledger.examined('web.sri.missing', page.path);
    for (const reference of page.html.references) {
      const stylesheet = reference.tag === 'link' && (reference.attributes.rel ?? '').toLowerCase().split(/\s+/).includes('stylesheet');
      if (reference.tag !== 'script' && !stylesheet) continue;
      let url: URL;
      try {
        url = new URL(reference.url, page.url);
      } catch {
        continue;
      }
      if (url.origin === page.url.origin || !/^https?:$/.test(url.protocol) || reference.attributes.integrity) continue;
      ledger.found('web.sri.missing', {
        path: page.path,
        key: url.href.slice(0, 500),
        detail: `${reference.tag === 'script' ? 'script' : 'stylesheet'} ${url.href.slice(0, 300)} is loaded without integrity`,
        evidence: { url: url.href.slice(0, 500), tag: reference.tag },
      });
    }
  },
};
