/**
 * NVD's CVE API 2.0 (nvd.nist.gov/developers/vulnerabilities): the CVEs whose applicability
 * statements match one CPE (`GET /rest/json/cves/2.0?virtualMatchString=<cpe>`), every page of
 * them (`startIndex`, `resultsPerPage`, `totalResults`). The answer is bounded in bytes, pages and
 * records and bound to the scan's deadline; anything but a well-formed 200 is an error, never "no
 * CVE". The records are returned as NVD sent them (validated); whether each one applies to the
 * detected version is decided by the caller with `applicability` (lib/nvd/cpe.ts).
 */
import { boundedJson } from '../osv/osv-client.ts';
import { cvss3BaseScore, severityOfScore, type CvssSeverity } from '../osv/cvss.ts';
import type { Configuration } from './cpe.ts';

/** Records one CPE may have; past it the answer is not believed (NVD has ~300 for OpenSSH's whole history). */
export const MAX_CVES_PER_CPE = 2_000;
const MAX_PAGES = 20;
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** What the engine asks for per page; NVD allows up to 2,000. */
const RESULTS_PER_PAGE = 500;

export interface NvdCve {
  id: string;
  description: string;
  vulnStatus: string;
  configurations: Configuration[];
  severity: CvssSeverity;
  /** Where the severity came from: a CVSS v3.1 (or v3.0) vector, NVD's v2 label, or neither. */
  severity_source: 'cvss_v3' | 'database' | 'none';
  cvss_v3?: { vector: string; score: number; source: string };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

class NotAnNvdAnswer extends Error {}

function configurationsOf(cve: Json, fail: (why: string) => never): Configuration[] {
  const raw = cve.configurations ?? [];
  if (!Array.isArray(raw)) return fail(`${String(cve.id)}: configurations is not an array`);
  return raw.map((configuration, c) => {
    if (!isObject(configuration) || !Array.isArray(configuration.nodes)) return fail(`${String(cve.id)}: configuration ${c} has no nodes`);
    return {
      ...(configuration.operator === 'AND' ? { operator: 'AND' as const } : {}),
      ...(configuration.negate === true ? { negate: true } : {}),
      nodes: configuration.nodes.map((node, n) => {
        if (!isObject(node) || !Array.isArray(node.cpeMatch)) return fail(`${String(cve.id)}: node ${c}.${n} has no cpeMatch`);
        return {
          ...(node.operator === 'AND' ? { operator: 'AND' as const } : {}),
          ...(node.negate === true ? { negate: true } : {}),
          cpeMatch: node.cpeMatch.map((match, m) => {
            if (!isObject(match) || typeof match.criteria !== 'string' || typeof match.vulnerable !== 'boolean')
              return fail(`${String(cve.id)}: cpeMatch ${c}.${n}.${m} has no criteria or vulnerable flag`);
            const bound = (key: string) => (typeof match[key] === 'string' ? { [key]: match[key] } : {});
            return {
              vulnerable: match.vulnerable,
              criteria: match.criteria,
              ...bound('versionStartIncluding'),
              ...bound('versionStartExcluding'),
              ...bound('versionEndIncluding'),
              ...bound('versionEndExcluding'),
            };
          }),
        };
      }),
    };
  });
}

const LABELS: Record<string, CvssSeverity> = { CRITICAL: 'critical', HIGH: 'high', MEDIUM: 'medium', LOW: 'low' };

/** The CVSS v3 vector NVD scored (its own Primary first), v3.1 before v3.0; the score computed from the vector. */
function severityOf(cve: Json): Pick<NvdCve, 'severity' | 'severity_source' | 'cvss_v3'> {
  const metrics = isObject(cve.metrics) ? cve.metrics : {};
  for (const key of ['cvssMetricV31', 'cvssMetricV30']) {
    const list = Array.isArray(metrics[key]) ? (metrics[key] as unknown[]).filter(isObject) : [];
    const ordered = [...list.filter((m) => m.type === 'Primary'), ...list.filter((m) => m.type !== 'Primary')];
    for (const metric of ordered) {
      const vector = isObject(metric.cvssData) ? metric.cvssData.vectorString : undefined;
      const score = typeof vector === 'string' ? cvss3BaseScore(vector) : undefined;
      if (score === undefined) continue;
      return {
        severity: severityOfScore(score),
        severity_source: 'cvss_v3',
        cvss_v3: { vector: vector as string, score, source: typeof metric.source === 'string' ? metric.source.slice(0, 100) : '' },
      };
    }
  }
  const v2 = Array.isArray(metrics.cvssMetricV2) ? (metrics.cvssMetricV2 as unknown[]).find(isObject) : undefined;
  const label = typeof v2?.baseSeverity === 'string' ? LABELS[v2.baseSeverity.toUpperCase()] : undefined;
  return label ? { severity: label, severity_source: 'database' } : { severity: 'medium', severity_source: 'none' };
}

/**
 * One page when the answer is a well-formed CVE API 2.0 result for the page asked: an object with
 * counts `resultsPerPage`, `startIndex` (the one asked for), `totalResults`, and `vulnerabilities`
 * an array of `{cve: {id: "CVE-…", configurations: [...]}}`; anything else is thrown.
 */
function pageOf(json: unknown, startIndex: number, origin: string): { total: number; cves: NvdCve[] } {
  const fail = (why: string): never => {
    throw new NotAnNvdAnswer(`${origin} answered something that is not an NVD CVE API 2.0 result: ${why}`);
  };
  if (!isObject(json)) return fail('not a JSON object');
  const { resultsPerPage, startIndex: at, totalResults, vulnerabilities } = json;
  if (!isCount(resultsPerPage) || !isCount(at) || !isCount(totalResults))
    return fail('resultsPerPage, startIndex or totalResults is not a count');
  if (at !== startIndex) return fail(`startIndex ${at} where ${startIndex} was asked`);
  if (!Array.isArray(vulnerabilities)) return fail('vulnerabilities is not an array');
  if (vulnerabilities.length > resultsPerPage) return fail(`${vulnerabilities.length} records on a page of ${resultsPerPage}`);
  const cves = vulnerabilities.map((item, i) => {
    const cve = isObject(item) ? item.cve : undefined;
    if (!isObject(cve) || typeof cve.id !== 'string' || !/^CVE-\d{4}-\d{4,}$/.test(cve.id)) return fail(`record ${i} has no CVE id`);
    const english = Array.isArray(cve.descriptions)
      ? cve.descriptions.find((d): d is Json => isObject(d) && d.lang === 'en' && typeof d.value === 'string')
      : undefined;
    return {
      id: cve.id,
      description: typeof english?.value === 'string' ? english.value.slice(0, 300) : '',
      vulnStatus: typeof cve.vulnStatus === 'string' ? cve.vulnStatus : '',
      configurations: configurationsOf(cve, fail),
      ...severityOf(cve),
    };
  });
  return { total: totalResults, cves };
}

/** What a refusal says: NVD puts its reason in a `message` header. */
function refusal(response: Response): string {
  const message = (response.headers.get('message') ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 200);
  const limited = response.status === 403 || response.status === 429;
  return `HTTP ${response.status}${limited ? ' (rate limited: the public service allows 5 requests in 30 s without an API key, NETSCAN_NVD_KEY)' : ''}${message ? `: ${message}` : ''}`;
}

/** The CVEs whose applicability statements NVD matches to `cpe`, every page of them. */
export async function queryNvdByCpe(
  baseUrl: string,
  cpe: string,
  options: { apiKey?: string; signal: AbortSignal; fetch?: typeof fetch },
): Promise<NvdCve[]> {
  const doFetch = options.fetch ?? fetch;
  const endpoint = new URL('rest/json/cves/2.0', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const found = new Map<string, NvdCve>();
  let startIndex = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const url = new URL(endpoint);
    url.searchParams.set('virtualMatchString', cpe);
    url.searchParams.set('resultsPerPage', String(RESULTS_PER_PAGE));
    url.searchParams.set('startIndex', String(startIndex));
    const response = await doFetch(url, {
      headers: { accept: 'application/json', ...(options.apiKey ? { apiKey: options.apiKey } : {}) },
      signal: options.signal,
      // The key is for this origin only: a redirect elsewhere would carry it.
      redirect: 'error',
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`${url.origin} refused the CVE query for ${cpe}: ${refusal(response)}`);
    }
    let json: unknown;
    try {
      json = await boundedJson(response, MAX_BODY_BYTES);
    } catch (error) {
      throw new Error(
        `${url.origin} answered the CVE query for ${cpe} with no readable JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const { total, cves } = pageOf(json, startIndex, url.origin);
    if (total > MAX_CVES_PER_CPE)
      throw new Error(`${url.origin} counts ${total} CVEs for ${cpe}, more than ${MAX_CVES_PER_CPE}: not believed`);
    for (const cve of cves) found.set(cve.id, cve);
    startIndex += cves.length;
    if (startIndex >= total) return [...found.values()];
    if (cves.length === 0) throw new Error(`${url.origin} returned an empty page at ${startIndex} of ${total} CVEs for ${cpe}`);
  }
  throw new Error(`${endpoint.origin} had more than ${MAX_PAGES} pages of CVEs for ${cpe}`);
}
