import { openVendor } from '../vendors/vendor-client.ts';
import { ctEntriesSchema, type CtEntry } from './ct-entries.ts';
import { CT, type OptInContext } from './services.ts';

export type CtSearch = { kind: 'ok'; entries: CtEntry[] } | { kind: 'error'; message: string };

/** One crt.sh search: `GET /?q=<pattern>&output=json`. crt.sh answers 404 for nothing found on some mirrors: that is an empty list. */
export async function searchCt(ctx: OptInContext, pattern: string, surface: 'discover' | 'leak', check: string): Promise<CtSearch> {
  const opened = openVendor(CT, ctx.vendors.ct, { fetch: ctx.fetch, surface, check });
  if (!opened.ok) return { kind: 'error', message: opened.unavailable.reason };
  const answer = await opened.client.request({ path: `/?q=${encodeURIComponent(pattern)}&output=json` }, ctEntriesSchema);
  if (answer.kind === 'error') return { kind: 'error', message: answer.message };
  return { kind: 'ok', entries: answer.kind === 'ok' ? answer.body : [] };
}
