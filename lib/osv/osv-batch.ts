/**
 * OSV's batch API (osv.dev/docs): `POST /v1/querybatch` names the advisories of up to 1,000 package
 * versions at once (ids only, every page), then `GET /v1/vulns/{id}` reads each advisory once and
 * `summarise` (osv-client.ts) makes it a finding's facts. Only a well-formed answer is read: any
 * other is an `OsvFailure`, never "no known vulnerabilities". Answers are bounded in bytes, pages
 * and records. sbomscan reads a repository's packages through it; netscan asks per service.
 */
import { boundedJson, summarise, type KnownVulnerability, type OsvPackageVersion } from './osv-client.ts';

/** A package version as OSV names it (`Maven` `group:artifact`, `npm` `@scope/name`, `Go` the module path). */
export type OsvQuery = OsvPackageVersion;

const BATCH = 1000;
const MAX_PAGES = 5;
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Advisories per package version and per scan: past these the answer is refused, not trusted. */
const MAX_IDS_PER_PACKAGE = 500;
const MAX_ADVISORIES = 5000;

export class OsvFailure extends Error {
  override readonly name = 'OsvFailure';
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
  try {
    return await boundedJson(response, MAX_BODY_BYTES);
  } catch (error) {
    const what = error instanceof SyntaxError ? 'is not JSON' : (error as Error).message.replace(/^the answer /, '');
    throw new OsvFailure(`the OSV service at ${url.origin} (${url.pathname}): the answer ${what}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The advisory ids of each query (same order), through every page of the batch API. */
async function queryIds(queries: readonly OsvQuery[], options: OsvOptions): Promise<string[][]> {
  const ids: string[][] = queries.map(() => []);
  for (let start = 0; start < queries.length; start += BATCH) {
    let pending = queries
      .slice(start, start + BATCH)
      .map((query, offset) => ({ index: start + offset, query, token: undefined as string | undefined }));
    for (let page = 0; pending.length > 0; page++) {
      if (page === MAX_PAGES) throw new OsvFailure(`the OSV service had more than ${MAX_PAGES} pages of results for one batch`);
      const answer = await post(options, 'v1/querybatch', {
        queries: pending.map(({ query, token }) => ({
          package: { name: query.name, ecosystem: query.ecosystem },
          version: query.version,
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
        if (result.vulns !== undefined && !Array.isArray(result.vulns))
          throw new OsvFailure('the OSV service answered `vulns` that is not an array');
        for (const vuln of (result.vulns ?? []) as unknown[]) {
          if (!isRecord(vuln) || typeof vuln.id !== 'string' || vuln.id === '' || vuln.id.length > 100)
            throw new OsvFailure('the OSV service answered an advisory without an id');
          ids[item.index].push(vuln.id);
          if (ids[item.index].length > MAX_IDS_PER_PACKAGE)
            throw new OsvFailure(
              `the OSV service answered more than ${MAX_IDS_PER_PACKAGE} advisories for ${item.query.ecosystem} ${item.query.name} ${item.query.version}`,
            );
        }
        if (result.next_page_token !== undefined && typeof result.next_page_token !== 'string')
          throw new OsvFailure('the OSV service answered a next_page_token that is not a string');
        if (typeof result.next_page_token === 'string' && result.next_page_token !== '')
          next.push({ ...item, token: result.next_page_token });
      });
      pending = next;
    }
  }
  return ids;
}

/** Each query's known vulnerabilities (same order), per the OSV service at `options.baseUrl`. */
export async function queryOsvBatch(queries: readonly OsvQuery[], options: OsvOptions): Promise<KnownVulnerability[][]> {
  const ids = await queryIds(queries, options);
  const unique = [...new Set(ids.flat())];
  if (unique.length > MAX_ADVISORIES)
    throw new OsvFailure(`the OSV service named ${unique.length} advisories, over the ${MAX_ADVISORIES} a scan reads`);
  const records = new Map<string, Record<string, unknown>>();
  for (const id of unique) {
    const record = await post(options, `v1/vulns/${encodeURIComponent(id)}`, undefined);
    if (!isRecord(record) || record.id !== id) throw new OsvFailure(`the OSV service answered something that is not advisory ${id}`);
    records.set(id, record);
  }
  return ids.map((list, index) => list.map((id) => summarise(records.get(id)! as Parameters<typeof summarise>[0], queries[index])));
}
