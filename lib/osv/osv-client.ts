/**
 * OSV's query API (`POST /v1/query`, osv.dev/docs): the vulnerabilities affecting one package
 * version, every page of them. The answer is bounded in bytes and pages, and bound to the scan's
 * deadline through `signal`; anything but a well-formed 200 is an error, never "no vulnerabilities".
 */
import { cvss3BaseScore, severityOfScore, type CvssSeverity } from './cvss.ts';

/** One package version in OSV's terms (an ecosystem of osv.dev/docs, the package's name there). */
export interface OsvPackageVersion {
  name: string;
  ecosystem: string;
  version: string;
}

export interface KnownVulnerability {
  id: string;
  aliases: string[];
  summary: string;
  severity: CvssSeverity;
  /** Where the severity came from: the CVSS v3 vector, the database's own label, or neither. */
  severity_source: 'cvss_v3' | 'database' | 'none';
  cvss_v3?: { vector: string; score: number };
  fixed: string[];
}

const MAX_PAGES = 10;
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Records one package version may have across its pages; past it the answer is not believed. */
export const MAX_RECORDS_PER_PACKAGE = 2_000;

/** The fields of a query result (osv.dev/docs): `vulns` and `next_page_token`, nothing that says error. */
const RESULT_KEYS = new Set(['vulns', 'next_page_token']);

/**
 * The records of one page when the answer is a well-formed query result: an object (not an array)
 * with only `vulns` (an array of objects, each with a string `id`) and `next_page_token` (a string);
 * anything else (`[]`, `{"error": …}`, a record without an id) is thrown, never read as "none".
 */
function pageOf(json: unknown, origin: string): { vulns: OsvRecord[]; next?: string } {
  const fail = (why: string): never => {
    throw new Error(`${origin} answered something that is not an OSV query result: ${why}`);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return fail('not a JSON object');
  const fields = json as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !RESULT_KEYS.has(key));
  if (unknown.length > 0) return fail(`unexpected field ${unknown.slice(0, 3).join(', ')}`);
  const { vulns = [], next_page_token: next } = fields;
  if (!Array.isArray(vulns)) return fail('vulns is not an array');
  if (next !== undefined && typeof next !== 'string') return fail('next_page_token is not a string');
  const bad = vulns.findIndex(
    (record) =>
      record === null ||
      typeof record !== 'object' ||
      typeof (record as { id?: unknown }).id !== 'string' ||
      (record as { id: string }).id === '',
  );
  if (bad !== -1) return fail(`record ${bad} has no string id`);
  return { vulns: vulns as OsvRecord[], next: next === '' ? undefined : next };
}

type OsvRecord = {
  id?: unknown;
  aliases?: unknown;
  summary?: unknown;
  severity?: { type?: unknown; score?: unknown }[];
  database_specific?: { severity?: unknown };
  affected?: {
    package?: { name?: unknown; ecosystem?: unknown };
    versions?: unknown;
    ranges?: { type?: unknown; events?: Record<string, unknown>[] }[];
  }[];
};

/**
 * Whether a record's own ranges put the package version among the affected (OSV schema,
 * "Evaluation"): the events of each ECOSYSTEM range in the ecosystem's order, `introduced` opening,
 * `fixed` and `last_affected` closing, or the version listed in `versions`. A record with no entry
 * for the package does not affect it: the service's match is not taken on trust.
 */
export function affectsVersion(record: OsvRecord, pkg: OsvPackageVersion, order: (a: string, b: string) => number): boolean {
  return (record.affected ?? []).some((affected) => {
    if (affected.package?.name !== pkg.name || affected.package.ecosystem !== pkg.ecosystem) return false;
    if (Array.isArray(affected.versions) && affected.versions.includes(pkg.version)) return true;
    return (affected.ranges ?? []).some((range) => {
      if (range.type !== 'ECOSYSTEM') return false;
      const events = (range.events ?? [])
        .map((event) => {
          const [kind, value] = Object.entries(event)[0] ?? [];
          return typeof value === 'string' && (kind === 'introduced' || kind === 'fixed' || kind === 'last_affected')
            ? { kind, value }
            : undefined;
        })
        .filter((event) => event !== undefined)
        .sort((a, b) => (a.value === '0' ? -1 : b.value === '0' ? 1 : order(a.value, b.value)));
      let affectedNow = false;
      for (const { kind, value } of events) {
        const at = value === '0' && kind === 'introduced' ? 1 : order(pkg.version, value);
        if (kind === 'introduced' && at >= 0) affectedNow = true;
        else if (kind === 'fixed' && at >= 0) affectedNow = false;
        else if (kind === 'last_affected' && at > 0) affectedNow = false;
      }
      return affectedNow;
    });
  });
}

const LABELS: Record<string, CvssSeverity> = { CRITICAL: 'critical', HIGH: 'high', MODERATE: 'medium', MEDIUM: 'medium', LOW: 'low' };

/** One OSV record as what the finding needs. */
export function summarise(record: OsvRecord, pkg: OsvPackageVersion): KnownVulnerability {
  const vectors = (record.severity ?? [])
    .filter((s) => s.type === 'CVSS_V3' && typeof s.score === 'string')
    .map((s) => ({ vector: s.score as string, score: cvss3BaseScore(s.score as string) }))
    .filter((s): s is { vector: string; score: number } => s.score !== undefined)
    .sort((a, b) => b.score - a.score);
  const label =
    typeof record.database_specific?.severity === 'string' ? LABELS[record.database_specific.severity.toUpperCase()] : undefined;
  const fixed = new Set<string>();
  for (const affected of record.affected ?? []) {
    if (affected.package?.name !== undefined && affected.package.name !== pkg.name) continue;
    for (const range of affected.ranges ?? [])
      for (const event of range.events ?? []) if (typeof event.fixed === 'string') fixed.add(event.fixed);
  }
  const base = {
    id: String(record.id),
    aliases: Array.isArray(record.aliases) ? record.aliases.filter((a): a is string => typeof a === 'string') : [],
    summary: typeof record.summary === 'string' ? record.summary.slice(0, 300) : '',
    fixed: [...fixed],
  };
  if (vectors[0]) return { ...base, severity: severityOfScore(vectors[0].score), severity_source: 'cvss_v3', cvss_v3: vectors[0] };
  if (label) return { ...base, severity: label, severity_source: 'database' };
  return { ...base, severity: 'medium', severity_source: 'none' };
}

/** A response's JSON, read up to `maxBytes` (declared or received); the OSV clients read no more. */
export async function boundedJson(response: Response, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new Error(`the answer declares ${declared} bytes, over ${maxBytes}`);
  if (!response.body) throw new Error('the answer has no body');
  const chunks: Buffer[] = [];
  let total = 0;
  // Node's fetch body is a web stream, which is async-iterable in Node.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > maxBytes) throw new Error(`the answer is over ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** The known vulnerabilities of a package version according to the OSV service at `baseUrl`. */
export async function queryOsv(
  baseUrl: string,
  pkg: OsvPackageVersion,
  options: {
    signal: AbortSignal;
    fetch?: typeof fetch;
    /**
     * The ecosystem's version order: each record is re-checked against its own ranges and dropped
     * (its id pushed to `excluded`) when they leave the version out.
     */
    versionOrder?: (a: string, b: string) => number;
    excluded?: string[];
  },
): Promise<KnownVulnerability[]> {
  const doFetch = options.fetch ?? fetch;
  const url = new URL('v1/query', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const found: KnownVulnerability[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const body = {
      package: { name: pkg.name, ecosystem: pkg.ecosystem },
      version: pkg.version,
      ...(pageToken ? { page_token: pageToken } : {}),
    };
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: options.signal,
      redirect: 'error',
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`${url.origin} answered HTTP ${response.status} to the query for ${pkg.ecosystem}/${pkg.name} ${pkg.version}`);
    }
    const { vulns, next } = pageOf(await boundedJson(response), url.origin);
    if (found.length + vulns.length > MAX_RECORDS_PER_PACKAGE) {
      throw new Error(
        `${url.origin} answered more than ${MAX_RECORDS_PER_PACKAGE} records for ${pkg.ecosystem}/${pkg.name} ${pkg.version}`,
      );
    }
    for (const record of vulns) {
      if (options.versionOrder && !affectsVersion(record, pkg, options.versionOrder)) options.excluded?.push(String(record.id));
      else found.push(summarise(record, pkg));
    }
    if (next === undefined) return found;
    pageToken = next;
  }
  throw new Error(`${url.origin} had more than ${MAX_PAGES} pages of results for ${pkg.ecosystem}/${pkg.name} ${pkg.version}`);
}
