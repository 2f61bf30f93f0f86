/**
 * OSV's batch API (osv.dev/docs): `POST /v1/querybatch` names the advisories of up to 1,000 package
 * versions at once (ids only), then `GET /v1/vulns/{id}` reads each advisory once. Only a
 * well-formed answer is read (DESIGN §18, issue 33): anything else is an error, never "no known
 * vulnerabilities". Answers are bounded in bytes, pages and records.
 */
import { cvss3BaseScore, severityOfScore } from '../../netscan/src/vm/cvss.ts';
import type { Severity } from '../../../lib/severity.ts';
import type { Component, Ecosystem } from './component.ts';

const OSV_ECOSYSTEM: Record<Ecosystem, string> = {
  npm: 'npm',
  pypi: 'PyPI',
  cargo: 'crates.io',
  golang: 'Go',
  gem: 'RubyGems',
  composer: 'Packagist',
  maven: 'Maven',
  nuget: 'NuGet',
};

const BATCH = 1000;
const MAX_PAGES = 5;
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Advisories per package version and per scan: past these the answer is refused, not trusted. */
const MAX_IDS_PER_PACKAGE = 500;
const MAX_ADVISORIES = 5000;
const LABELS: Record<string, Severity> = { CRITICAL: 'critical', HIGH: 'high', MODERATE: 'medium', MEDIUM: 'medium', LOW: 'low' };

export class OsvFailure extends Error {
  override readonly name = 'OsvFailure';
}

export interface Advisory {
  id: string;
  aliases: string[];
  summary: string;
  severity: Severity;
  severity_source: 'cvss_v3' | 'database' | 'none';
  cvss_v3?: { vector: string; score: number };
  /** Fixed versions for this package. */
  fixed: string[];
  malicious: boolean;
}

function osvName(component: Component): string {
  if (component.ecosystem === 'npm') return component.namespace ? `${component.namespace}/${component.name}` : component.name;
  if (component.ecosystem === 'maven') return `${component.namespace}:${component.name}`;
  if (component.namespace) return `${component.namespace}/${component.name}`;
  return component.name;
}

async function boundedJson(response: Response, what: string): Promise<unknown> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new OsvFailure(`${what}: the answer declares ${declared} bytes, over ${MAX_BODY_BYTES}`);
  if (!response.body) throw new OsvFailure(`${what}: the answer has no body`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > MAX_BODY_BYTES) throw new OsvFailure(`${what}: the answer is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new OsvFailure(`${what}: the answer is not JSON`);
  }
}

export interface OsvOptions {
  baseUrl: string;
  signal: AbortSignal;
  fetch?: typeof fetch;
}

async function post(options: OsvOptions, path: string, body: unknown): Promise<unknown> {
  const url = new URL(path, options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
      redirect: 'error',
    });
  } catch (error) {
    throw new OsvFailure(`the OSV service at ${url.origin} cannot be reached: ${(error as Error).message}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new OsvFailure(`the OSV service at ${url.origin} answered HTTP ${response.status} to ${url.pathname}`);
  }
  return boundedJson(response, `the OSV service at ${url.origin} (${url.pathname})`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The advisory ids of each component (same order), through every page of the batch API. */
async function queryIds(components: readonly Component[], options: OsvOptions): Promise<string[][]> {
  const ids: string[][] = components.map(() => []);
  for (let start = 0; start < components.length; start += BATCH) {
    let pending = components.slice(start, start + BATCH).map((component, offset) => ({ index: start + offset, component, token: undefined as string | undefined }));
    for (let page = 0; pending.length > 0; page++) {
      if (page === MAX_PAGES) throw new OsvFailure(`the OSV service had more than ${MAX_PAGES} pages of results for one batch`);
      const answer = await post(options, 'v1/querybatch', {
        queries: pending.map(({ component, token }) => ({
          package: { name: osvName(component), ecosystem: OSV_ECOSYSTEM[component.ecosystem] },
          version: component.version,
          ...(token ? { page_token: token } : {}),
        })),
      });
      if (!isRecord(answer) || !Array.isArray(answer.results) || answer.results.length !== pending.length) {
        throw new OsvFailure('the OSV service answered something that is not a querybatch result (results missing or of the wrong length)');
      }
      const next: typeof pending = [];
      answer.results.forEach((result: unknown, offset) => {
        const item = pending[offset];
        if (!isRecord(result)) throw new OsvFailure('the OSV service answered a result that is not an object');
        if (result.vulns !== undefined && !Array.isArray(result.vulns)) throw new OsvFailure('the OSV service answered `vulns` that is not an array');
        for (const vuln of (result.vulns ?? []) as unknown[]) {
          if (!isRecord(vuln) || typeof vuln.id !== 'string' || vuln.id === '' || vuln.id.length > 100) throw new OsvFailure('the OSV service answered an advisory without an id');
          ids[item.index].push(vuln.id);
          if (ids[item.index].length > MAX_IDS_PER_PACKAGE) throw new OsvFailure(`the OSV service answered more than ${MAX_IDS_PER_PACKAGE} advisories for ${item.component.purl}`);
        }
        if (result.next_page_token !== undefined && typeof result.next_page_token !== 'string') throw new OsvFailure('the OSV service answered a next_page_token that is not a string');
        if (typeof result.next_page_token === 'string' && result.next_page_token !== '') next.push({ ...item, token: result.next_page_token });
      });
      pending = next;
    }
  }
  return ids;
}

function summarise(record: Record<string, unknown>, component: Component): Advisory {
  const severities = Array.isArray(record.severity) ? (record.severity as Array<{ type?: unknown; score?: unknown }>) : [];
  const vectors = severities
    .filter((s) => (s.type === 'CVSS_V3' || s.type === 'CVSS_V3_1') && typeof s.score === 'string')
    .map((s) => ({ vector: s.score as string, score: cvss3BaseScore(s.score as string) }))
    .filter((s): s is { vector: string; score: number } => s.score !== undefined)
    .sort((a, b) => b.score - a.score);
  const dbSeverity = isRecord(record.database_specific) ? record.database_specific.severity : undefined;
  const label = typeof dbSeverity === 'string' ? LABELS[dbSeverity.toUpperCase()] : undefined;
  const fixed = new Set<string>();
  const name = osvName(component);
  for (const affected of Array.isArray(record.affected) ? (record.affected as Array<Record<string, unknown>>) : []) {
    const pkg = isRecord(affected.package) ? affected.package : {};
    if (pkg.name !== undefined && pkg.name !== name) continue;
    for (const range of Array.isArray(affected.ranges) ? (affected.ranges as Array<{ events?: unknown }>) : []) {
      for (const event of Array.isArray(range.events) ? (range.events as Array<Record<string, unknown>>) : []) if (typeof event.fixed === 'string') fixed.add(event.fixed);
    }
  }
  const id = String(record.id);
  const base = {
    id,
    aliases: Array.isArray(record.aliases) ? record.aliases.filter((a): a is string => typeof a === 'string').slice(0, 50) : [],
    summary: typeof record.summary === 'string' ? record.summary.slice(0, 300) : '',
    fixed: [...fixed].slice(0, 50),
    malicious: id.startsWith('MAL-'),
  };
  if (vectors[0]) return { ...base, severity: severityOfScore(vectors[0].score), severity_source: 'cvss_v3', cvss_v3: vectors[0] };
  if (label) return { ...base, severity: label, severity_source: 'database' };
  return { ...base, severity: 'medium', severity_source: 'none' };
}

/** Each component's advisories, per the OSV service at `options.baseUrl`. */
export async function lookUpAdvisories(components: readonly Component[], options: OsvOptions): Promise<Advisory[][]> {
  const ids = await queryIds(components, options);
  const unique = [...new Set(ids.flat())];
  if (unique.length > MAX_ADVISORIES) throw new OsvFailure(`the OSV service named ${unique.length} advisories, over the ${MAX_ADVISORIES} a scan reads`);
  const records = new Map<string, Record<string, unknown>>();
  for (const id of unique) {
    const record = await post(options, `v1/vulns/${encodeURIComponent(id)}`, undefined);
    if (!isRecord(record) || record.id !== id) throw new OsvFailure(`the OSV service answered something that is not advisory ${id}`);
    records.set(id, record);
  }
  return ids.map((list, index) => list.map((id) => summarise(records.get(id)!, components[index])));
}
