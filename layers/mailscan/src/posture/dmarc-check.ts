import { finding, type ReportFinding } from '../catalogue.ts';
import { inParallel } from '../dns/dependency-depth.ts';
import type { DnsAnswer, Resolver } from '../../../../lib/dns/resolver.ts';
import type { CheckError } from '../reputation/context.ts';
import { isDmarcRecord, mailtoAddress, parseDmarc, type DmarcTags, type Policy } from './dmarc-record.ts';
import { organizationalDomain } from './organizational-domain.ts';

export interface ReportDestination {
  uri: string;
  kind: 'rua' | 'ruf';
  address: string | null;
  domain: string | null;
  /** In another organizational domain: it must authorize the reports (RFC 7489 §7.1). */
  external: boolean;
  /** For external destinations: whether `<domain>._report._dmarc.<destination>` authorizes them; null when unknown. */
  authorized: boolean | null;
}

export interface DmarcData {
  status: 'ok' | 'none' | 'invalid' | 'temperror';
  record: string | null;
  /** Where the applied record was found: the domain itself or its organizational domain. */
  source: 'domain' | 'organizational' | null;
  record_domain: string | null;
  organizational_domain: string;
  tags: DmarcTags | null;
  /** The policy a receiver applies to mail from the scanned domain. */
  policy: Policy | null;
  report_destinations: ReportDestination[];
  problems: string[];
}

export interface DmarcCheck {
  data: DmarcData;
  findings: ReportFinding[];
  errors: CheckError[];
  answered: boolean;
}

type Lookup =
  { kind: 'record'; record: string } | { kind: 'none' } | { kind: 'invalid'; error: string } | { kind: 'unknown'; message: string };

export async function checkDmarc(domain: string, resolver: Resolver): Promise<DmarcCheck> {
  const orgDomain = organizationalDomain(domain);
  const errors: CheckError[] = [];
  // The organizational record is asked for at once: it saves a round-trip when the domain has none.
  const [own, org] = await Promise.all([
    lookup(resolver, domain),
    orgDomain === domain ? Promise.resolve(null) : lookup(resolver, orgDomain),
  ]);
  const base: DmarcData = {
    status: 'none',
    record: null,
    source: null,
    record_domain: null,
    organizational_domain: orgDomain,
    tags: null,
    policy: null,
    report_destinations: [],
    problems: [],
  };
  const answered = own.kind !== 'unknown';

  let chosen: { lookup: Lookup; source: 'domain' | 'organizational'; at: string } | null = null;
  if (own.kind === 'unknown') {
    errors.push({ surface: 'posture', check: 'dmarc', message: own.message });
  } else if (own.kind !== 'none') {
    chosen = { lookup: own, source: 'domain', at: domain };
  } else if (org !== null) {
    if (org.kind === 'unknown') errors.push({ surface: 'posture', check: 'dmarc', message: org.message });
    else if (org.kind !== 'none') chosen = { lookup: org, source: 'organizational', at: orgDomain };
  }

  if (chosen === null) {
    const data = { ...base, status: errors.length > 0 ? ('temperror' as const) : ('none' as const) };
    const findings =
      errors.length > 0
        ? []
        : [
            finding('mailscan.dmarc.missing', 'high', `Neither _dmarc.${domain} nor the organizational domain publishes a DMARC record.`, {
              domain,
              organizational_domain: orgDomain,
            }),
          ];
    return { data, findings, errors, answered };
  }
  const where = { source: chosen.source, record_domain: chosen.at };
  if (chosen.lookup.kind === 'invalid') {
    const data: DmarcData = { ...base, ...where, status: 'invalid', problems: [chosen.lookup.error] };
    return {
      data,
      findings: [
        finding('mailscan.dmarc.missing', 'high', `The DMARC record at _dmarc.${chosen.at} is unusable: ${chosen.lookup.error}.`, {
          domain,
          record_domain: chosen.at,
          problem: chosen.lookup.error,
        }),
      ],
      errors,
      answered,
    };
  }
  const record = (chosen.lookup as { record: string }).record;
  const parsed = parseDmarc(record);
  if (!parsed.ok) {
    const data: DmarcData = { ...base, ...where, status: 'invalid', record, problems: [parsed.error] };
    return {
      data,
      findings: [
        finding('mailscan.dmarc.missing', 'high', `The DMARC record at _dmarc.${chosen.at} is unusable: ${parsed.error}.`, {
          domain,
          record_domain: chosen.at,
          record,
          problem: parsed.error,
        }),
      ],
      errors,
      answered,
    };
  }
  const tags = parsed.tags;
  const policy = chosen.source === 'organizational' ? (tags.sp ?? tags.p) : tags.p;
  const destinations = await reportDestinations(resolver, chosen.at, tags, errors);
  const data: DmarcData = {
    ...base,
    ...where,
    status: 'ok',
    record,
    tags,
    policy,
    report_destinations: destinations,
    problems: parsed.problems,
  };
  const findings =
    policy === 'none'
      ? [
          finding('mailscan.dmarc.policy_none', 'medium', `The DMARC policy applied to ${domain} is none: failing mail is delivered.`, {
            domain,
            record_domain: chosen.at,
            record,
            policy,
          }),
        ]
      : [];
  return { data, findings, errors, answered };
}

async function lookup(resolver: Resolver, domain: string): Promise<Lookup> {
  const answer = await resolver.query(`_dmarc.${domain}`, 'TXT');
  if (answer.status === 'unknown') return { kind: 'unknown', message: `_dmarc.${domain}: ${answer.message}` };
  const records = answer.status === 'found' ? answer.records.filter(isDmarcRecord) : [];
  if (records.length === 0) return { kind: 'none' };
  // §6.6.3: more than one record means no policy applies.
  if (records.length > 1) return { kind: 'invalid', error: `${records.length} DMARC records` };
  return { kind: 'record', record: records[0] };
}

async function reportDestinations(
  resolver: Resolver,
  recordDomain: string,
  tags: DmarcTags,
  errors: CheckError[],
): Promise<ReportDestination[]> {
  const uris = [...tags.rua.map((uri) => ({ uri, kind: 'rua' as const })), ...tags.ruf.map((uri) => ({ uri, kind: 'ruf' as const }))];
  const ownOrg = organizationalDomain(recordDomain);
  return inParallel(uris, async ({ uri, kind }): Promise<ReportDestination> => {
    const address = mailtoAddress(uri);
    const destinationDomain = address?.split('@')[1] ?? null;
    const external = destinationDomain !== null && organizationalDomain(destinationDomain) !== ownOrg;
    if (!external || destinationDomain === null) return { uri, kind, address, domain: destinationDomain, external, authorized: null };
    const name = `${recordDomain}._report._dmarc.${destinationDomain}`;
    const answer: DnsAnswer<'TXT'> = await resolver.query(name, 'TXT');
    if (answer.status === 'unknown') {
      errors.push({ surface: 'posture', check: 'dmarc', message: `${name}: ${answer.message}` });
      return { uri, kind, address, domain: destinationDomain, external, authorized: null };
    }
    const authorized = answer.status === 'found' && answer.records.some(isDmarcRecord);
    return { uri, kind, address, domain: destinationDomain, external, authorized };
  });
}
