import { isIPv4 } from 'node:net';
import { getDomain } from 'tldts';
import { finding, type ReportFinding } from '../catalogue.ts';
import { parseIpv6 } from '../http/ip-address.ts';
import type { CheckError, ReputationContext, ReputationInput } from './context.ts';
import { checkError, type CheckResult } from './check-result.ts';
import { listFor, type ListDefinition, type ListKind } from './dnsbl-lists.ts';

export interface ListResult {
  list: string;
  zone: string;
  subject: string;
  /** The name asked, with a DQS key replaced by `<dqs-key>` so reports never carry it. */
  query: string;
  status: 'listed' | 'not_listed' | 'error';
  return_codes: string[];
  meanings: string[];
  error?: string;
}

/**
 * RFC 5782 §5: an IPv4 list never lists 127.0.0.1 and a domain list never lists `invalid`. A list
 * that does answers every query (a list shut down by listing the world, a wildcard), so its
 * answers this scan are errors, not listings.
 */
export interface ListProbe {
  list: string;
  zone: string;
  query: string;
  status: 'not_listed' | 'answers_everything' | 'unknown';
  return_codes: string[];
}

export interface ListsData {
  status: 'ok' | 'error';
  dqs: boolean;
  results: ListResult[];
  /** One RFC 5782 test query per list asked this scan. */
  list_checks: ListProbe[];
}

/** `192.0.2.1` → `1.2.0.192`; IPv6 → 32 reversed nibbles (RFC 5782 §2.4); null for anything else. */
export function reverseIp(ip: string): string | null {
  if (isIPv4(ip)) return ip.split('.').reverse().join('.');
  const bytes = parseIpv6(ip);
  if (!bytes) return null;
  const nibbles = Array.from(bytes).flatMap((byte) => [(byte >> 4).toString(16), (byte & 0xf).toString(16)]);
  return nibbles.reverse().join('.');
}

/** The zone to ask: the public one, or with a DQS key `<key>.<dqs zone>` (Spamhaus Data Query Service). */
export function zoneToQuery(list: ListDefinition, dqsKey: string | undefined): { zone: string; shown: string } {
  if (!dqsKey || !list.dqsZone) return { zone: list.zone, shown: list.zone };
  return { zone: `${dqsKey}.${list.dqsZone}`, shown: `<dqs-key>.${list.dqsZone}` };
}

/** Block-lists for the domain (and its organizational domain) and every MX address. */
export async function checkDnsbl(input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<ListsData>> {
  const lists = [
    ...ctx.config.dnsbl.domainZones.map((zone) => listFor(zone, 'domain')),
    ...ctx.config.dnsbl.ipZones.map((zone) => listFor(zone, 'ip')),
  ];
  return runLists('dnsbl', lists, input, ctx);
}

/** Trust lists (DNSWL) for every MX address: reported, never a finding. */
export async function checkTrustlist(input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<ListsData>> {
  return runLists(
    'trustlist',
    ctx.config.trustlist.zones.map((zone) => listFor(zone, 'trust')),
    input,
    ctx,
  );
}

async function runLists(
  check: string,
  lists: ListDefinition[],
  input: ReputationInput,
  ctx: ReputationContext,
): Promise<CheckResult<ListsData>> {
  const domains = domainSubjects(input.domain);
  const ips = [...new Set(input.mx.flatMap((mx) => [...mx.ipv4, ...mx.ipv6]))];
  const asked = lists
    .map((list) => ({
      list,
      subjects: subjectsFor(list.kind, domains, ips).filter((subject) => list.kind === 'domain' || list.ipv6 || isIPv4(subject)),
    }))
    .filter(({ subjects }) => subjects.length > 0);
  // The test query goes out with the subjects' queries: it costs no round-trip of its own.
  const [probes, answers] = await Promise.all([
    Promise.all(asked.map(({ list }) => probe(list, ctx))),
    Promise.all(asked.flatMap(({ list, subjects }) => subjects.map((subject) => lookup(list, subject, ctx)))),
  ]);
  const results = answers.map((result) => {
    const listProbe = probes.find((entry) => entry.zone === result.zone && entry.list === result.list);
    if (result.status !== 'listed' || listProbe?.status !== 'answers_everything') return result;
    return {
      ...result,
      status: 'error' as const,
      error: `${result.return_codes.join(', ')}: not a listing: the list also lists its RFC 5782 test entry ${listProbe.query} (${listProbe.return_codes.join(', ')}), so it answers every query`,
    };
  });
  const findings: ReportFinding[] = [];
  const errors: CheckError[] = [];
  for (const result of results) {
    if (result.status === 'error') errors.push(checkError(check, `${result.zone} ${result.subject}: ${result.error}`));
    if (result.status === 'listed' && check === 'dnsbl') {
      findings.push(
        finding('mailscan.dnsbl.listed', 'high', `${result.subject} is listed on ${result.list}: ${result.meanings.join('; ')}`, {
          list: result.list,
          zone: result.zone,
          subject: result.subject,
          return_codes: result.return_codes,
          meanings: result.meanings,
        }),
      );
    }
  }
  const status = errors.length > 0 ? 'error' : 'ok';
  return {
    status,
    data: { status, dqs: Boolean(ctx.config.spamhausDqsKey) && lists.some((list) => list.dqsZone), results, list_checks: probes },
    findings,
    errors,
  };
}

function domainSubjects(domain: string): string[] {
  const normalised = domain.toLowerCase().replace(/\.$/, '');
  const organizational = getDomain(normalised, { allowPrivateDomains: false });
  return organizational && organizational !== normalised ? [normalised, organizational] : [normalised];
}

function subjectsFor(kind: ListKind, domains: string[], ips: string[]): string[] {
  return kind === 'domain' ? domains : ips;
}

async function lookup(list: ListDefinition, subject: string, ctx: ReputationContext): Promise<ListResult> {
  const { zone, shown } = zoneToQuery(list, ctx.config.spamhausDqsKey);
  const label = list.kind === 'domain' ? subject : reverseIp(subject);
  const base = {
    list: list.name,
    zone: list.zone,
    subject,
    query: `${label}.${shown}`,
    return_codes: [] as string[],
    meanings: [] as string[],
  };
  if (label === null) return { ...base, status: 'error', error: 'not an IP address' };
  const answer = await ctx.resolver.query(`${label}.${zone}`, 'A');
  if (answer.status === 'absent') return { ...base, status: 'not_listed' };
  if (answer.status === 'unknown')
    return { ...base, status: 'error', error: `DNS ${answer.reason}: ${redact(answer.message, ctx.config.spamhausDqsKey)}` };
  const codes = [...answer.records].sort();
  // A block-list answers inside 127/8; anything else is a resolver rewriting NXDOMAIN, not a verdict.
  const outside = codes.filter((code) => !code.startsWith('127.'));
  if (outside.length > 0)
    return { ...base, return_codes: codes, status: 'error', error: `answer ${outside.join(', ')} is outside 127.0.0.0/8` };
  const decoded = codes.map((code) => list.decode(code));
  const meanings = decoded.map((entry) => entry.meaning);
  const refused = decoded.filter((entry) => entry.outcome === 'error');
  if (refused.length > 0) {
    return {
      ...base,
      return_codes: codes,
      meanings,
      status: 'error',
      error: `${codes.join(', ')}: ${refused.map((entry) => entry.meaning).join('; ')}`,
    };
  }
  return { ...base, return_codes: codes, meanings, status: 'listed' };
}

/** Asks the list about the entry RFC 5782 says it never lists; only a `listed` reading of the answer condemns it. */
async function probe(list: ListDefinition, ctx: ReputationContext): Promise<ListProbe> {
  const { zone, shown } = zoneToQuery(list, ctx.config.spamhausDqsKey);
  const label = list.kind === 'domain' ? 'invalid' : '1.0.0.127';
  const base = { list: list.name, zone: list.zone, query: `${label}.${shown}` };
  const answer = await ctx.resolver.query(`${label}.${zone}`, 'A');
  if (answer.status === 'absent') return { ...base, status: 'not_listed', return_codes: [] };
  if (answer.status === 'unknown') return { ...base, status: 'unknown', return_codes: [] };
  const codes = [...answer.records].sort();
  // A refusal or an answer outside 127/8 already makes the subjects' answers errors on their own.
  const listed =
    codes.every((code) => code.startsWith('127.')) && codes.map((code) => list.decode(code)).every((entry) => entry.outcome === 'listed');
  return { ...base, status: listed ? 'answers_everything' : 'not_listed', return_codes: codes };
}

function redact(text: string, key: string | undefined): string {
  return key ? text.split(key).join('<dqs-key>') : text;
}
