import * as z from 'zod';
import { finding, type ReportFinding } from '../catalogue.ts';
import { CODESEARCH, type CheckOutcome, type OptInContext } from '../external/services.ts';
import type { CheckError } from '../reputation/context.ts';
import { openVendor, unavailableOutcome } from '../vendors/vendor-client.ts';

/** The credential words searched next to the domain (docs/mailscan-discover-leak.md). */
export const CREDENTIAL_WORDS: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'secret',
  'api_key',
  'apikey',
  'token',
  'smtp',
  'aws_secret_access_key',
  'private_key',
  'client_secret',
  'auth_token',
  'credentials',
];

const searchSchema = z.looseObject({
  total_count: z.number().int().nonnegative(),
  items: z
    .array(
      z.looseObject({
        name: z.string().max(1_000),
        path: z.string().max(4_000),
        html_url: z.string().max(4_000),
        repository: z.looseObject({ full_name: z.string().max(500) }),
      }),
    )
    .max(100),
});

/** Findings are per file: a search hit in many words is still one file to clean. */
const MAX_FINDINGS = 50;

/**
 * Code search (GitHub REST shape): `"<domain>" <word>` for each credential word, one query at a time
 * (code search is rate-limited per key). One finding per repository file, with every word it matched.
 */
export async function checkCodeSearch(ctx: OptInContext): Promise<CheckOutcome<Record<string, unknown>> & { findings: ReportFinding[] }> {
  const opened = openVendor(CODESEARCH, ctx.vendors.codesearch, { fetch: ctx.fetch, surface: 'leak', check: 'codesearch' });
  if (!opened.ok) return { status: opened.unavailable.status, ...unavailableOutcome(opened.unavailable) };
  const client = opened.client;
  const errors: CheckError[] = [];
  const hits = new Map<string, { repository: string; path: string; url: string; words: string[] }>();
  const totals: Record<string, number> = {};
  for (const word of ctx.settings.codesearch.words) {
    const query = `"${ctx.domain}" ${word}`;
    const answer = await client.request(
      { path: `/search/code?q=${encodeURIComponent(query)}&per_page=${ctx.settings.codesearch.maxResultsPerWord}` },
      searchSchema,
    );
    if (answer.kind === 'error') {
      errors.push(client.error(`${word}: ${answer.message}`));
      continue;
    }
    const body = answer.kind === 'ok' ? answer.body : { total_count: 0, items: [] };
    totals[word] = body.total_count;
    for (const item of body.items.slice(0, ctx.settings.codesearch.maxResultsPerWord)) {
      const key = `${item.repository.full_name}/${item.path}`;
      const hit = hits.get(key) ?? { repository: item.repository.full_name, path: item.path, url: item.html_url, words: [] };
      if (!hit.words.includes(word)) hit.words.push(word);
      hits.set(key, hit);
    }
  }
  const findings = [...hits.values()]
    .slice(0, MAX_FINDINGS)
    .map((hit) =>
      finding(
        'mailscan.leak.code_search_hit',
        'medium',
        `${hit.repository}/${hit.path} mentions ${ctx.domain} next to ${hit.words.join(', ')}.`,
        { repository: hit.repository, path: hit.path, url: hit.url, words: hit.words, word: hit.words[0] },
      ),
    );
  const status = errors.length > 0 ? 'error' : 'ok';
  return {
    status,
    data: { status, words: ctx.settings.codesearch.words.length, total_counts: totals, files: hits.size },
    findings,
    errors,
  };
}
