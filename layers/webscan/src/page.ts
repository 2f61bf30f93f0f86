/** What the crawler hands to every passive check: one response of the target, with its HTML parsed. */
import type { WebResponse } from './http-client.ts';
import type { ParsedHtml } from './html.ts';
import type { Ledger } from './ledger.ts';

export interface Page {
  url: URL;
  /** pathname + search: what `ignore` globs and evidence name. */
  path: string;
  response: WebResponse;
  /** The body as text (UTF-8, bounded). */
  text: string;
  /** Parsed when the response is HTML. */
  html?: ParsedHtml;
}

/** A passive check: sees every response of the crawl, records into the ledger. */
export interface PassiveCheck {
  inspect(page: Page, ledger: Ledger): void;
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}
