import { finding, type ReportFinding } from '../catalogue.ts';
import type { OptInContext } from '../external/services.ts';
import type { CheckError, RecordedCheck } from '../reputation/context.ts';
import { checkBreaches } from './breach.ts';
import { watchCertstream, type CertstreamResult } from './certstream.ts';
import { checkCodeSearch } from './code-search.ts';
import { checkCommercialFeeds } from './commercial-feeds.ts';
import { lookalikeCandidates, scanLookalikes, type LookalikeCertificate, type LookalikeScan } from './lookalikes.ts';

export interface LeakResult {
  status: 'ok' | 'error';
  data: Record<string, unknown>;
  findings: ReportFinding[];
  errors: CheckError[];
  /** The breach database, code search, lookalike, certificate stream and commercial feed checks, as they ran. */
  checks: RecordedCheck[];
}

/** Registered lookalikes listed in the report, at most; the counts cover all. */
const MAX_LISTED = 200;

/**
 * The leak surface: where the domain's credentials and brand leaked. Breach database, code search,
 * lookalike domains (every permutation resolved, CT asked about each registered one), the
 * certificate stream window, and the commercial feeds, all at once; each check reports on its own.
 */
export async function runLeak(ctx: OptInContext): Promise<LeakResult> {
  const { domain } = ctx;
  const { candidates, generated } = lookalikeCandidates(domain, ctx);
  ctx.log('leak started', { domain, lookalike_candidates: candidates.length, generated });
  const stream = watchCertstream(domain, new Set(candidates.map((candidate) => candidate.domain)), {
    endpoint: ctx.settings.certstream.endpoint,
    seconds: ctx.settings.certstream.seconds,
    maxMessages: ctx.settings.certstream.maxMessages,
    allowPrivate: ctx.allowPrivate,
    allowLoopback: ctx.allowLoopback,
    resolver: ctx.resolver,
    signal: ctx.signal,
  });
  const [breach, code, lookalikes, feeds, certstream] = await Promise.all([
    checkBreaches(ctx),
    checkCodeSearch(ctx),
    scanLookalikes(ctx, candidates, generated),
    checkCommercialFeeds(ctx),
    stream,
  ]);

  const certificates = new Map<string, LookalikeCertificate[]>(lookalikes.certificates);
  for (const match of certstream.matches.filter((item) => item.kind === 'lookalike')) {
    // One certificate often names the lookalike and its www: it is one certificate.
    if (certificates.get(match.matched)?.some((cert) => cert.source === 'certstream' && cert.id === (match.cert_index ?? -1))) continue;
    certificates.set(match.matched, [
      ...(certificates.get(match.matched) ?? []),
      { id: match.cert_index ?? -1, issuer: null, not_before: match.seen, not_after: null, logged_at: match.seen, source: 'certstream' },
    ]);
  }
  const byDomain = new Map(candidates.map((candidate) => [candidate.domain, candidate]));
  const registered = lookalikes.resolved.filter((item) => item.state === 'registered');
  const registeredByDomain = new Map(registered.map((item) => [item.domain, item]));
  const findings: ReportFinding[] = [];
  for (const [name, certs] of [...certificates].sort(([a], [b]) => a.localeCompare(b))) {
    const resolved = registeredByDomain.get(name);
    const candidate = byDomain.get(name);
    if (!candidate) continue;
    findings.push(
      finding(
        'mailscan.leak.lookalike',
        'high',
        `${candidate.unicode ?? name} (${candidate.family}) looks like ${domain}${resolved ? ' and is registered' : ''}, and has ${certs.length} certificate(s)${resolved && resolved.mx.length > 0 ? '; it also receives mail' : ''}.`,
        {
          lookalike: name,
          ...(candidate.unicode ? { unicode: candidate.unicode } : {}),
          family: candidate.family,
          registered: resolved !== undefined,
          addresses: resolved ? [...resolved.a, ...resolved.aaaa] : [],
          mx: resolved?.mx ?? [],
          ns: resolved?.ns ?? [],
          certificates: certs.slice(0, 10).map((cert) => ({
            id: cert.id,
            not_before: cert.not_before,
            not_after: cert.not_after,
            issuer: cert.issuer,
            source: cert.source,
          })),
          certificate_count: certs.length,
        },
      ),
    );
  }

  const errors = [...breach.errors, ...code.errors, ...lookalikes.errors, ...feeds.errors, ...certstream.errors];
  const count = (state: string): number => lookalikes.resolved.filter((item) => item.state === state).length;
  return {
    status: errors.length > 0 ? 'error' : 'ok',
    data: {
      breach: breach.data,
      codesearch: code.data,
      lookalikes: {
        status: lookalikes.errors.length > 0 ? 'error' : 'ok',
        generated: lookalikes.generated,
        candidates: lookalikes.candidates,
        resolved: lookalikes.resolved.length,
        queries: lookalikes.queries,
        registered: count('registered'),
        unregistered: count('unregistered'),
        unknown: count('unknown'),
        ct_checked: lookalikes.ctChecked,
        with_certificates: findings.length,
        registered_domains: registered.slice(0, MAX_LISTED).map((item) => ({
          domain: item.domain,
          family: item.family,
          ...(item.unicode ? { unicode: item.unicode } : {}),
          a: item.a,
          aaaa: item.aaaa,
          mx: item.mx,
          ns: item.ns,
          certificates: certificates.get(item.domain)?.length ?? 0,
        })),
        unknown_domains: lookalikes.resolved
          .filter((item) => item.state === 'unknown')
          .slice(0, MAX_LISTED)
          .map((item) => ({ domain: item.domain, reason: item.reason })),
      },
      certstream: {
        status: certstream.status,
        ...(certstream.reason ? { reason: certstream.reason } : {}),
        seconds: certstream.seconds,
        messages: certstream.messages,
        certificates: certstream.certificates,
        matches: certstream.matches,
      },
      feeds: feeds.data,
    },
    findings: [...breach.findings, ...code.findings, ...findings, ...feeds.findings],
    errors,
    checks: [
      vendorCheck('mailscan.leak.breachdb_breach', breach, (data) => breachWords(domain, data)),
      vendorCheck('mailscan.leak.code_search_hit', code, (data) => codeSearchWords(domain, data)),
      lookalikeCheck(lookalikes, findings.length),
      certstreamCheck(certstream),
      feedsCheck(feeds),
    ],
  };
}

type Outcome = { status: 'ok' | 'error' | 'skipped'; data: Record<string, unknown>; errors: CheckError[] };

/** One vendor's check: skipped with its reason (no key), an error with what failed, else what it read. */
function vendorCheck(rule: string, outcome: Outcome, words: (data: Record<string, unknown>) => string): RecordedCheck {
  const reason = typeof outcome.data.reason === 'string' ? outcome.data.reason : undefined;
  if (outcome.status === 'skipped') return { rules: [rule], outcome: 'skipped', detail: reason ?? 'not asked' };
  if (outcome.status === 'error' || outcome.errors.length > 0) {
    const detail = outcome.errors.map((error) => error.message).join('; ') || reason || 'could not complete';
    return { rules: [rule], outcome: 'error', detail };
  }
  return { rules: [rule], outcome: 'ran', detail: words(outcome.data) };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

function breachWords(domain: string, data: Record<string, unknown>): string {
  const addresses =
    data.address_lookup === 'done' ? ' and for its breached addresses' : " (no key: the domain's breached addresses not asked)";
  return `breach database asked for breaches of ${domain}${addresses}: ${plural(Number(data.breaches ?? 0), 'breach', 'breaches')}`;
}

function codeSearchWords(domain: string, data: Record<string, unknown>): string {
  return `code search asked for "${domain}" next to ${plural(Number(data.words ?? 0), 'credential word')}: ${plural(Number(data.files ?? 0), 'file')} found`;
}

/** The lookalike check: the permutations resolved and the registered ones asked about in CT. */
function lookalikeCheck(scan: LookalikeScan, withCertificates: number): RecordedCheck {
  const rules = ['mailscan.leak.lookalike'];
  if (scan.errors.length > 0) return { rules, outcome: 'error', detail: scan.errors.map((error) => error.message).join('; ') };
  const registered = scan.resolved.filter((item) => item.state === 'registered').length;
  const unknown = scan.resolved.filter((item) => item.state === 'unknown').length;
  return {
    rules,
    outcome: 'ran',
    detail:
      `${plural(scan.candidates, 'lookalike permutation')} of ${scan.generated.toLocaleString('en-US')} generated resolved (${plural(scan.queries, 'query', 'queries')}): ` +
      `${registered.toLocaleString('en-US')} registered${unknown > 0 ? `, ${unknown.toLocaleString('en-US')} unanswered` : ''}; ` +
      `CT asked about ${plural(scan.ctChecked, 'registered one')}: ${withCertificates.toLocaleString('en-US')} lookalike${withCertificates === 1 ? '' : 's'} with certificates`,
  };
}

/** The certificate stream, a second source of lookalike certificates: off, failed, or what it heard. */
function certstreamCheck(stream: CertstreamResult): RecordedCheck {
  const rules = ['mailscan.leak.lookalike'];
  if (stream.status === 'skipped')
    return { rules, outcome: 'skipped', detail: `certificate stream not watched: ${stream.reason ?? 'off'}` };
  if (stream.status === 'error') {
    const detail = stream.errors.map((error) => error.message).join('; ') || stream.reason || 'could not complete';
    return { rules, outcome: 'error', detail: `certificate stream: ${detail}` };
  }
  const lookalikes = stream.matches.filter((match) => match.kind === 'lookalike').length;
  return {
    rules,
    outcome: 'ran',
    detail: `certificate stream watched ${stream.seconds ?? 0} s: ${plural(stream.messages ?? 0, 'message')}, ${plural(stream.certificates ?? 0, 'certificate')}, ${lookalikes} naming a lookalike`,
  };
}

/** The commercial feeds as one check: each feed asked, skipped (no key) or failed, in words; the feeds asked are its lists. */
function feedsCheck(feeds: { data: Record<string, unknown>; errors: CheckError[] }): RecordedCheck {
  const rules = ['mailscan.leak.commercial_feed'];
  const entries = Object.entries(feeds.data as Record<string, { status?: string; reason?: string; read?: number; sources?: number }>);
  const asked = entries.filter(([, data]) => data.status === 'ok').map(([name]) => name);
  const words = entries.map(([name, data]) =>
    data.status === 'ok'
      ? `${name}: ${plural(data.read ?? 0, 'record')} read from ${plural(data.sources ?? 0, 'source')}`
      : `${name}: ${data.reason ?? data.status ?? 'not asked'}`,
  );
  if (feeds.errors.length > 0) return { rules, outcome: 'error', detail: words.join('; ') };
  if (asked.length === 0) return { rules, outcome: 'skipped', detail: words.join('; ') };
  return { rules, outcome: 'ran', detail: words.join('; '), lists: asked };
}
