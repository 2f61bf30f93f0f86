import * as z from 'zod';
import { finding, type ReportFinding } from '../catalogue.ts';
import { DEHASHED, INTELX, SNUSBASE, type OptInContext } from '../external/services.ts';
import type { CheckError } from '../reputation/context.ts';
import { openVendor, unavailableOutcome, type VendorClient } from '../vendors/vendor-client.ts';
import type { VendorDefinition } from '../vendors/vendor.ts';
import { exposedFields, firstString, maskAddress } from './mask.ts';

/**
 * The commercial leak feeds (DeHashed v2, Intelligence X, Snusbase shapes), each key-gated. Records
 * are summarised per feed and source database: how many, which fields were exposed, masked address
 * samples. A password or hash value is read only to know that it is there; it never leaves this
 * module (DESIGN §6).
 */
const stringOrList = z
  .union([z.string().max(10_000), z.array(z.string().max(10_000)).max(100)])
  .optional()
  .nullable();
const dehashedSchema = z.looseObject({
  total: z.number().int().nonnegative().optional(),
  entries: z
    .array(
      z.looseObject({
        email: stringOrList,
        username: stringOrList,
        password: stringOrList,
        hashed_password: stringOrList,
        database_name: stringOrList,
      }),
    )
    .max(10_000)
    .nullable()
    .optional(),
});
const intelxStartSchema = z.looseObject({ id: z.string().max(200) });
const intelxResultSchema = z.looseObject({
  records: z
    .array(
      z.looseObject({
        systemid: z.string().max(200),
        name: z.string().max(2_000).optional().nullable(),
        bucket: z.string().max(200).optional().nullable(),
        date: z.string().max(64).optional().nullable(),
      }),
    )
    .max(10_000)
    .nullable()
    .optional(),
  status: z.number().int(),
});
const snusbaseSchema = z.looseObject({
  results: z.record(
    z.string().max(500),
    z
      .array(
        z.looseObject({
          email: z.string().max(10_000).optional().nullable(),
          username: z.string().max(10_000).optional().nullable(),
          password: z.string().max(10_000).optional().nullable(),
          hash: z.string().max(10_000).optional().nullable(),
        }),
      )
      .max(10_000),
  ),
});

const SECRET_FIELDS = new Set(['password', 'hashed_password', 'hash']);
const SAMPLES = 3;
/** Intelligence X answers status 3 while a search is still running; a few polls, then what is there. */
const INTELX_POLLS = 3;
const INTELX_POLL_PAUSE_MS = 500;

interface SourceSummary {
  records: number;
  exposed: Set<string>;
  samples: string[];
  dates: string[];
}

export interface FeedOutcome {
  data: Record<string, unknown>;
  findings: ReportFinding[];
  errors: CheckError[];
}

function summarise(
  groups: Map<string, SourceSummary>,
  source: string,
  record: Record<string, unknown>,
  fields: readonly string[],
  email: string | null,
  date?: string | null,
): void {
  const group = groups.get(source) ?? { records: 0, exposed: new Set<string>(), samples: [], dates: [] };
  group.records += 1;
  for (const field of exposedFields(record, fields)) group.exposed.add(field);
  const masked = email ? maskAddress(email) : null;
  if (masked && group.samples.length < SAMPLES && !group.samples.includes(masked)) group.samples.push(masked);
  if (date && group.dates.length < SAMPLES) group.dates.push(date);
  groups.set(source, group);
}

function findingsOf(feed: string, domain: string, groups: Map<string, SourceSummary>): ReportFinding[] {
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([source, group]) => {
      const exposed = [...group.exposed].sort();
      const secrets = exposed.filter((field) => SECRET_FIELDS.has(field));
      return finding(
        'mailscan.leak.commercial_feed',
        secrets.length > 0 ? 'high' : 'medium',
        `${feed} reports ${group.records} record(s) of ${domain} in ${source}${secrets.length > 0 ? `, exposing ${secrets.join(' and ')}` : ''}.`,
        {
          feed,
          source,
          records: group.records,
          exposed_fields: exposed,
          secret_exposed: secrets.length > 0,
          masked_samples: group.samples,
          dates: group.dates,
        },
      );
    });
}

async function dehashed(client: VendorClient, ctx: OptInContext, groups: Map<string, SourceSummary>): Promise<Record<string, unknown>> {
  const size = ctx.settings.feeds.pageSize;
  let seen = 0;
  let total = 0;
  for (let page = 1; seen < ctx.settings.feeds.maxRecords; page += 1) {
    const answer = await client.request({ path: '/v2/search', json: { query: `domain:${ctx.domain}`, page, size } }, dehashedSchema);
    if (answer.kind === 'error') throw new Error(answer.message);
    const entries = answer.kind === 'ok' ? (answer.body.entries ?? []) : [];
    total = answer.kind === 'ok' ? (answer.body.total ?? entries.length) : 0;
    for (const entry of entries.slice(0, ctx.settings.feeds.maxRecords - seen)) {
      summarise(
        groups,
        firstString(entry.database_name) ?? 'unknown database',
        entry,
        ['email', 'username', 'password', 'hashed_password'],
        firstString(entry.email),
      );
    }
    seen += entries.length;
    if (entries.length < size || seen >= total) break;
  }
  return { total, read: Math.min(seen, ctx.settings.feeds.maxRecords) };
}

async function intelx(client: VendorClient, ctx: OptInContext, groups: Map<string, SourceSummary>): Promise<Record<string, unknown>> {
  const started = await client.request(
    { path: '/intelligent/search', json: { term: ctx.domain, maxresults: ctx.settings.feeds.maxRecords } },
    intelxStartSchema,
  );
  if (started.kind !== 'ok') throw new Error(started.kind === 'error' ? started.message : 'search not accepted (404)');
  let read = 0;
  let finalStatus = -1;
  for (let poll = 0; poll < INTELX_POLLS; poll += 1) {
    const answer = await client.request(
      { path: `/intelligent/search/result?id=${encodeURIComponent(started.body.id)}&limit=${ctx.settings.feeds.maxRecords}` },
      intelxResultSchema,
    );
    if (answer.kind !== 'ok') throw new Error(answer.kind === 'error' ? answer.message : 'search result not found (404)');
    finalStatus = answer.body.status;
    for (const record of (answer.body.records ?? []).slice(0, ctx.settings.feeds.maxRecords - read)) {
      summarise(groups, record.bucket ?? 'unknown bucket', record, ['name'], null, record.date);
      read += 1;
    }
    // 0: results (more may follow), 1: done, 2: unknown id, 3: nothing yet.
    if (finalStatus === 1 || finalStatus === 2 || read >= ctx.settings.feeds.maxRecords) break;
    if (finalStatus === 3) await new Promise((resolve) => setTimeout(resolve, INTELX_POLL_PAUSE_MS));
  }
  return { read, search_status: finalStatus };
}

async function snusbase(client: VendorClient, ctx: OptInContext, groups: Map<string, SourceSummary>): Promise<Record<string, unknown>> {
  const answer = await client.request({ path: '/data/search', json: { terms: [ctx.domain], types: ['_domain'] } }, snusbaseSchema);
  if (answer.kind === 'error') throw new Error(answer.message);
  let read = 0;
  for (const [database, records] of Object.entries(answer.kind === 'ok' ? answer.body.results : {})) {
    for (const record of records) {
      if (read >= ctx.settings.feeds.maxRecords) break;
      summarise(groups, database, record, ['email', 'username', 'password', 'hash'], record.email ?? null);
      read += 1;
    }
  }
  return { read };
}

const FEEDS: [VendorDefinition, 'dehashed' | 'intelx' | 'snusbase', typeof dehashed][] = [
  [DEHASHED, 'dehashed', dehashed],
  [INTELX, 'intelx', intelx],
  [SNUSBASE, 'snusbase', snusbase],
];

export async function checkCommercialFeeds(ctx: OptInContext): Promise<FeedOutcome> {
  const outcomes = await Promise.all(
    FEEDS.map(async ([definition, name, read]): Promise<[string, FeedOutcome]> => {
      const opened = openVendor(definition, ctx.vendors[name], { fetch: ctx.fetch, surface: 'leak', check: name });
      if (!opened.ok) return [name, unavailableOutcome(opened.unavailable)];
      const groups = new Map<string, SourceSummary>();
      try {
        const summary = await read(opened.client, ctx, groups);
        return [
          name,
          { data: { status: 'ok', ...summary, sources: groups.size }, findings: findingsOf(name, ctx.domain, groups), errors: [] },
        ];
      } catch (cause) {
        const message = (cause as Error).message;
        // What was read before the failure still counts.
        return [
          name,
          {
            data: { status: 'error', reason: message, sources: groups.size },
            findings: findingsOf(name, ctx.domain, groups),
            errors: [opened.client.error(message)],
          },
        ];
      }
    }),
  );
  return {
    data: Object.fromEntries(outcomes.map(([name, outcome]) => [name, outcome.data])),
    findings: outcomes.flatMap(([, outcome]) => outcome.findings),
    errors: outcomes.flatMap(([, outcome]) => outcome.errors),
  };
}
