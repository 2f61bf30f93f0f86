import { finding, type ReportFinding } from '../catalogue.ts';
import type { OptInContext } from '../external/services.ts';
import type { CheckError } from '../reputation/context.ts';
import { checkBreaches } from './breach.ts';
import { watchCertstream } from './certstream.ts';
import { checkCodeSearch } from './code-search.ts';
import { checkCommercialFeeds } from './commercial-feeds.ts';
import { lookalikeCandidates, scanLookalikes, type LookalikeCertificate } from './lookalikes.ts';

export interface LeakResult {
  status: 'ok' | 'error';
  data: Record<string, unknown>;
  findings: ReportFinding[];
  errors: CheckError[];
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
  };
}
