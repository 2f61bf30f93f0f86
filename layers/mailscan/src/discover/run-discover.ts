import * as z from 'zod';
import { finding, type ReportFinding } from '../catalogue.ts';
import { readCtEntries } from '../external/ct-entries.ts';
import { searchCt } from '../external/ct-search.ts';
import { EMAILREP, surfaceError, type OptInContext } from '../external/services.ts';
import type { CheckError, RecordedCheck } from '../reputation/context.ts';
import { openVendor, unavailableOutcome } from '../vendors/vendor-client.ts';
import { buildCandidates, normaliseAddress, soaAddress, type Candidate, type CandidateSource } from './candidates.ts';
import { probeRecipients, type MxTarget, type RcptState, type SmtpProbeData } from './smtp-probe.ts';

export interface DiscoverInput {
  mx: MxTarget[];
  /** rua/ruf mailto addresses posture found in the DMARC record. */
  dmarcAddresses: string[];
}

export interface DiscoverResult {
  status: 'ok' | 'error';
  data: Record<string, unknown>;
  findings: ReportFinding[];
  errors: CheckError[];
  /** The catch-all probe and the address-reputation lookups, as they ran. */
  checks: RecordedCheck[];
}

const emailrepSchema = z.looseObject({
  email: z.string().max(320),
  reputation: z.string().max(50).optional().nullable(),
  suspicious: z.boolean().optional().nullable(),
  details: z.looseObject({
    blacklisted: z.boolean().optional().nullable(),
    malicious_activity: z.boolean().optional().nullable(),
    credentials_leaked: z.boolean().optional().nullable(),
    data_breach: z.boolean().optional().nullable(),
  }),
});

/**
 * The discover surface: who can be reached at the domain, as an attacker would find out. Candidate
 * addresses come from CT, the SOA RNAME, DMARC report addresses, role names and learned name
 * patterns; the MX is asked about them (RCPT, catch-all first); found and accepted addresses are
 * looked up in an address-reputation service.
 */
export async function runDiscover(input: DiscoverInput, ctx: OptInContext): Promise<DiscoverResult> {
  const { domain } = ctx;
  const errors: CheckError[] = [];
  const [ct, soa] = await Promise.all([searchCt(ctx, `%${domain}`, 'discover', 'ct'), ctx.resolver.query(domain, 'SOA')]);

  const ctData = ct.kind === 'ok' ? readCtEntries(ct.entries, domain) : null;
  if (ct.kind === 'error') errors.push(surfaceError('discover', 'ct', ct.message));
  let soaData: Record<string, unknown>;
  const found: { address: string; source: CandidateSource }[] = [];
  if (soa.status === 'found' && soa.records[0]) {
    const address = soaAddress(soa.records[0].rname);
    soaData = { status: 'ok', rname: soa.records[0].rname, address };
    if (address) found.push({ address, source: 'soa' });
  } else if (soa.status === 'unknown') {
    soaData = { status: 'error', reason: soa.message };
    errors.push(surfaceError('discover', 'soa', soa.message));
  } else {
    soaData = { status: 'ok', rname: null, address: null };
  }
  for (const address of ctData?.addresses ?? []) found.push({ address, source: 'ct' });
  for (const text of input.dmarcAddresses) {
    const address = normaliseAddress(text);
    if (address) found.push({ address, source: 'dmarc' });
  }
  const { candidates, patterns } = buildCandidates({ domain, found, people: ctData?.people ?? [] });
  ctx.log('discover candidates', { domain, candidates: candidates.length, patterns });

  const smtp = await probeRecipients(
    domain,
    input.mx,
    candidates.map((candidate) => candidate.address),
    { ...ctx.settings.smtp, allowPrivate: ctx.allowPrivate, allowLoopback: ctx.allowLoopback },
    ctx.signal,
  );
  for (const message of smtp.errors) errors.push(surfaceError('discover', 'smtp', message));
  const rcptOf = new Map((smtp.data.results ?? []).map((result) => [result.address, result]));

  const findings: ReportFinding[] = [];
  if (smtp.data.catch_all === true) {
    findings.push(
      finding(
        'mailscan.discover.catch_all',
        'low',
        `The MX ${smtp.data.mx} accepts mail for a random address at ${domain}: every address looks valid, so RCPT answers cannot tell real mailboxes from made-up ones, and mail for any name is accepted.`,
        {
          domain,
          mx: smtp.data.mx,
          probe_address: smtp.data.catch_all_probe?.address,
          reply_code: smtp.data.catch_all_probe?.code,
          reply: smtp.data.catch_all_probe?.reply,
        },
        // The probe address is random each scan: the same catch-all MX is the same problem, one issue.
        `mx=${smtp.data.mx}`,
      ),
    );
  }

  const reputation = await lookUpAddresses(ctx, candidates, rcptOf);
  // Candidates a failed CT search or SOA lookup never yielded, or that an unfinished SMTP probe never
  // saw accepted, were not looked up: the lookups are incomplete.
  const sourceErrors = errors.filter((error) => error.check === 'ct' || error.check === 'soa' || error.check === 'smtp');
  errors.push(...reputation.errors);
  findings.push(...reputation.findings);
  const checks = [catchAllCheck(domain, smtp), addressCheck(reputation, sourceErrors, candidates.length)];

  return {
    status: errors.length > 0 ? 'error' : 'ok',
    data: {
      candidates: candidates.map((candidate) => ({ ...candidate, rcpt: rcptOf.get(candidate.address)?.state ?? 'not_probed' })),
      patterns,
      ct:
        ct.kind === 'ok'
          ? {
              status: 'ok',
              certificates: ct.entries.length,
              names: ctData?.names ?? [],
              addresses: ctData?.addresses ?? [],
              people: ctData?.people.length ?? 0,
            }
          : { status: 'error', reason: ct.message },
      soa: soaData,
      smtp: smtp.data satisfies SmtpProbeData,
      emailrep: reputation.data,
    },
    findings,
    errors,
    checks,
  };
}

/** The catch-all probe as it ran: which MX was asked, what it answered to a random address. */
function catchAllCheck(domain: string, smtp: { data: SmtpProbeData; errors: string[] }): RecordedCheck {
  const rules = ['mailscan.discover.catch_all'];
  const { data } = smtp;
  if (data.status === 'skipped') return { rules, outcome: 'skipped', detail: data.reason ?? 'the SMTP probe did not run' };
  const probe = data.catch_all_probe;
  if (data.catch_all === null || data.catch_all === undefined || probe === undefined) {
    const why = probe
      ? `${data.mx} answered ${probe.code ?? 'nothing'} ${probe.reply} to a random address at ${domain}`
      : smtp.errors.join('; ');
    return { rules, outcome: 'error', detail: `catch-all unknown: ${why || (data.reason ?? 'no answer')}` };
  }
  const asked = data.results?.length ?? 0;
  return {
    rules,
    outcome: 'ran',
    detail: `MX ${data.mx} (${data.address}) ${data.catch_all ? 'accepted' : 'rejected'} a random address at ${domain} (${probe.code} ${probe.reply}); ${asked} candidate${asked === 1 ? '' : 's'} asked after it${smtp.errors.length > 0 ? `, then ${smtp.errors.join('; ')}` : ''}`,
  };
}

/** The address-reputation lookups as they ran: how many addresses, how many flagged, and what was left out. */
function addressCheck(
  reputation: { data: Record<string, unknown>; errors: CheckError[] },
  sourceErrors: readonly CheckError[],
  candidates: number,
): RecordedCheck {
  const rules = ['mailscan.discover.flagged_address'];
  const data = reputation.data as {
    status?: string;
    reason?: string;
    results?: { status: string; flags?: string[] }[];
    not_looked_up?: number;
  };
  if (data.status === 'skipped') return { rules, outcome: 'skipped', detail: data.reason ?? 'emailrep did not run' };
  const problems = [...reputation.errors, ...sourceErrors].map((error) => `${error.check}: ${error.message}`);
  if (problems.length > 0) return { rules, outcome: 'error', detail: problems.join('; ') };
  const results = data.results ?? [];
  const flagged = results.filter((result) => (result.flags?.length ?? 0) > 0).length;
  const unknown = results.filter((result) => result.status === 'unknown_to_vendor').length;
  const left = data.not_looked_up ?? 0;
  return {
    rules,
    outcome: 'ran',
    detail: `emailrep asked about ${results.length} of ${candidates} candidate addresses (accepted by the MX or found in CT, the SOA or DMARC): ${flagged} flagged, ${unknown} unknown to it${left > 0 ? `; ${left} more not asked (max_addresses)` : ''}`,
  };
}

/** Addresses worth a reputation lookup: the ones the MX accepted, and the ones found in public data. */
function addressesToLookUp(candidates: Candidate[], rcptOf: Map<string, { state: RcptState }>): string[] {
  return candidates
    .filter(
      (candidate) =>
        rcptOf.get(candidate.address)?.state === 'accepted' ||
        candidate.sources.some((source) => source === 'ct' || source === 'soa' || source === 'dmarc'),
    )
    .map((candidate) => candidate.address);
}

async function lookUpAddresses(
  ctx: OptInContext,
  candidates: Candidate[],
  rcptOf: Map<string, { state: RcptState }>,
): Promise<{ data: Record<string, unknown>; findings: ReportFinding[]; errors: CheckError[] }> {
  const opened = openVendor(EMAILREP, ctx.vendors.emailrep, { fetch: ctx.fetch, surface: 'discover', check: 'emailrep' });
  if (!opened.ok) return unavailableOutcome(opened.unavailable);
  const all = addressesToLookUp(candidates, rcptOf);
  const addresses = all.slice(0, ctx.settings.emailrep.maxAddresses);
  const findings: ReportFinding[] = [];
  const errors: CheckError[] = [];
  const results = [];
  // One at a time: address-reputation APIs rate-limit per key, and the list is short.
  for (const address of addresses) {
    const answer = await opened.client.request({ path: `/${encodeURIComponent(address)}` }, emailrepSchema);
    if (answer.kind === 'error') {
      errors.push(opened.client.error(`${address}: ${answer.message}`));
      results.push({ address, status: 'error' });
      continue;
    }
    if (answer.kind === 'not_found') {
      results.push({ address, status: 'unknown_to_vendor' });
      continue;
    }
    const details = answer.body.details;
    const flags = (['blacklisted', 'malicious_activity', 'credentials_leaked', 'data_breach'] as const).filter(
      (flag) => details[flag] === true,
    );
    results.push({ address, status: 'ok', reputation: answer.body.reputation ?? null, suspicious: answer.body.suspicious ?? null, flags });
    if (flags.length === 0) continue;
    const severity = flags.includes('blacklisted') || flags.includes('malicious_activity') ? 'high' : 'medium';
    findings.push(
      finding(
        'mailscan.discover.flagged_address',
        severity,
        `${address} is flagged by the address-reputation service: ${flags.join(', ').replaceAll('_', ' ')}.`,
        {
          address,
          flags,
          reputation: answer.body.reputation ?? null,
          suspicious: answer.body.suspicious ?? null,
          rcpt: rcptOf.get(address)?.state ?? 'not_probed',
          sources: candidates.find((candidate) => candidate.address === address)?.sources ?? [],
        },
      ),
    );
  }
  return { data: { status: errors.length > 0 ? 'error' : 'ok', results, not_looked_up: all.length - addresses.length }, findings, errors };
}
