/**
 * MTA-STS (RFC 8461) as DESIGN §19 reads it: the `_mta-sts` TXT record, the policy at
 * https://mta-sts.<domain>/.well-known/mta-sts.txt (fetched through the scan's resolver, no
 * redirect followed, as §3.3 requires), and whether its `mx:` patterns cover every MX host.
 */
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import { FetchError } from '../../../../lib/http/safe-fetch.ts';
import { describeFailure, text, type DomainHttp } from '../http.ts';

export interface MtaStsPolicy {
  mode: string;
  mx: string[];
  max_age: number | null;
}

export type MtaSts =
  { kind: 'policy'; id: string; policy: MtaStsPolicy } | { kind: 'missing'; why: string } | { kind: 'error'; message: string };

export async function readMtaSts(resolver: Resolver, http: DomainHttp, domain: string): Promise<MtaSts> {
  const name = `_mta-sts.${domain}`;
  const txt = await resolver.query(name, 'TXT');
  if (txt.status === 'unknown') return { kind: 'error', message: `TXT of ${name}: ${txt.message}` };
  const records = txt.status === 'found' ? txt.records.filter((record) => /^v=STSv1\s*(;|$)/.test(record.trim())) : [];
  if (records.length === 0) return { kind: 'missing', why: `no v=STSv1 TXT record at ${name}` };
  if (records.length > 1) return { kind: 'missing', why: `${records.length} v=STSv1 TXT records at ${name} (RFC 8461 §3.1: none is used)` };
  const id = /(?:^|;)\s*id=([A-Za-z0-9]{1,32})\s*(?:;|$)/.exec(records[0])?.[1];
  if (!id) return { kind: 'missing', why: `the TXT record at ${name} has no valid id` };
  const url = `https://mta-sts.${domain}/.well-known/mta-sts.txt`;
  let response;
  try {
    response = await http.host(url, { maxBytes: 65_536 });
  } catch (error) {
    if (error instanceof FetchError && error.code === 'host_not_found') return { kind: 'missing', why: `mta-sts.${domain} does not exist` };
    return { kind: 'error', message: describeFailure(`the policy at ${url}`, error) };
  }
  if (response.status >= 500) return { kind: 'error', message: `the policy at ${url} answered HTTP ${response.status}` };
  if (response.status !== 200) return { kind: 'missing', why: `the policy at ${url} answered HTTP ${response.status}` };
  const policy = parsePolicy(text(response));
  if (typeof policy === 'string') return { kind: 'missing', why: `the policy at ${url} is not valid: ${policy}` };
  return { kind: 'policy', id, policy };
}

/** RFC 8461 §3.2: `key: value` lines; version STSv1, a mode, mx lines unless mode none, a max_age. */
export function parsePolicy(body: string): MtaStsPolicy | string {
  const fields = new Map<string, string[]>();
  for (const line of body.split(/\r?\n/)) {
    const match = /^([A-Za-z0-9_]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!match) continue;
    fields.set(match[1], [...(fields.get(match[1]) ?? []), match[2]]);
  }
  if (fields.get('version')?.[0] !== 'STSv1') return 'version is not STSv1';
  const mode = fields.get('mode')?.[0];
  if (mode !== 'enforce' && mode !== 'testing' && mode !== 'none') return 'mode is not enforce, testing or none';
  const mx = (fields.get('mx') ?? []).map((pattern) => pattern.toLowerCase().replace(/\.$/, ''));
  if (mode !== 'none' && mx.length === 0) return 'no mx line';
  const maxAge = Number(fields.get('max_age')?.[0]);
  return { mode, mx, max_age: Number.isInteger(maxAge) ? maxAge : null };
}

/** RFC 8461 §4.1: `*.example.com` matches one label in front of example.com; otherwise the name itself. */
export function mxMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) {
    const suffix = pattern.slice(1);
    return host.endsWith(suffix) && !host.slice(0, -suffix.length).includes('.') && host.length > suffix.length;
  }
  return pattern === host;
}
