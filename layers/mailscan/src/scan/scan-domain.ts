import { branch } from '../dns/dependency-depth.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import { checkDomainExistence } from '../posture/domain-existence.ts';
import { startPosture, type PostureSurface } from '../posture/run-posture.ts';
import type { PendingReputationInput, RecordedCheck, ReputationContext, ReputationInput, SurfaceResult } from '../reputation/context.ts';
import { reportSchema, type Report } from '../report.ts';
import { SCANNER_NAME, SCANNER_VERSION } from '../version.ts';
import { runTechniques, type Technique } from '../adversary/techniques.ts';
import { probeResolver, unansweredPosture } from './resolver-health.ts';
import { loadDiscover, loadHeader, loadLeak, loadRua } from '../on-demand.ts';
import type { ReportFinding } from '../catalogue.ts';
import type { OptInContext } from '../external/services.ts';
import { CheckRecorder, DNS_SURFACES } from './check-recorder.ts';
import type { Surface } from '../catalogue.ts';

/** The reputation surface's entry point (reputation/index.ts), passed in so scans can run without it. */
export type RunReputation = (
  input: ReputationInput | PendingReputationInput,
  ctx: ReputationContext,
) => Promise<SurfaceResult<Record<string, unknown>>>;

export interface ScanRequest {
  domain: string;
  dkimSelectors: readonly string[];
  /** null: the reputation surface is off (--no-reputation). */
  reputation: { run: RunReputation; context: ReputationContext } | null;
  /** Aggregate report files for the rua surface; empty: not requested. */
  rua?: readonly string[];
  /** One message for the header surface; null or absent: not requested. */
  eml?: string | null;
  /** The opt-in discover and leak surfaces and the adversary techniques (docs/mailscan-discover-leak.md). */
  optIn?: OptInRequest | null;
}

export interface OptInRequest {
  discover: boolean;
  leak: boolean;
  techniques: readonly Technique[];
  context: OptInContext;
}

export interface ScanDependencies {
  resolver: Resolver;
  now: () => Date;
  log: (event: string, fields?: Record<string, unknown>) => void;
  /** The scan's deadline (--timeout): checks still running then are reported as errors. */
  deadline?: AbortSignal;
  /** Who answers our DNS questions (`127.0.0.1:53`), named when it is the resolver that fails. */
  resolverName?: string;
}

export type ScanOutcome = { kind: 'report'; report: Report } | { kind: 'could_not_start'; message: string };

const NOT_REQUESTED = { status: 'skipped', reason: 'not requested' } as const;

/** Findings that say a record is missing: for a domain that does not exist they tell the wrong story. */
const MISSING_RECORD_RULES = new Set([
  'mailscan.spf.missing',
  'mailscan.dmarc.missing',
  'mailscan.dkim.not_found',
  'mailscan.dnssec.unsigned',
]);

/**
 * One scan: posture and reputation start together; each reputation check waits only for the
 * posture result it needs (MX hosts, SPF lookup count, DKIM keys), so the scan's wall time follows
 * its longest chain of dependent lookups. Expected outcomes (missing records, unanswered queries)
 * end up in the report; only a bug throws.
 */
export async function scanDomain(request: ScanRequest, deps: ScanDependencies): Promise<ScanOutcome> {
  const startedAt = deps.now();
  // Whether any question about the domain or a name under it got an answer other than NXDOMAIN:
  // then the resolver is not one that answers NXDOMAIN for everything, whatever the root probe says.
  const heard = { otherThanNxdomain: false };
  const within = (name: string): boolean => {
    const normal = name.replace(/\.$/, '').toLowerCase();
    return normal === request.domain || normal.endsWith(`.${request.domain}`);
  };
  const postureResolver: Resolver = {
    async query(name, type) {
      const answer = await deps.resolver.query(name, type);
      if (within(name) && !(answer.status === 'absent' && answer.reason === 'nxdomain')) heard.otherThanNxdomain = true;
      return answer;
    },
  };
  const started = startPosture(request.domain, postureResolver, request.dkimSelectors);
  const optIn = request.optIn ?? null;
  // Leak needs nothing from posture: its lookalike enumeration, the longest work, starts at once.
  const leakRun = optIn?.leak ? runSurfaceSafely('leak', async () => (await loadLeak()).runLeak(optIn.context), deps) : null;
  const discoverRun = optIn?.discover
    ? runSurfaceSafely(
        'discover',
        async () => {
          const [{ runDiscover }, posture] = await Promise.all([loadDiscover(), started.result]);
          const dmarcAddresses = posture.surface.dmarc.report_destinations
            .map((destination) => destination.address)
            .filter((address): address is string => address !== null);
          return runDiscover({ mx: posture.surface.mx.hosts, dmarcAddresses }, optIn.context);
        },
        deps,
      )
    : null;
  const reputationRequest = request.reputation;
  const reputationRun =
    reputationRequest === null
      ? Promise.resolve({ status: 'skipped' as const, data: { reason: 'disabled with --no-reputation' }, findings: [], errors: [] })
      : runSurfaceSafely('reputation', () => branch(() => reputationRequest.run(started.pending, reputationRequest.context)), deps);
  const ruaRun =
    request.rua && request.rua.length > 0
      ? runFileSurface(
          'rua',
          async () =>
            (await loadRua()).runRua({
              domain: request.domain,
              files: request.rua ?? [],
              log: deps.log,
              deadline: deps.deadline,
            }),
          deps,
        )
      : Promise.resolve(null);
  const headerRun = request.eml
    ? runFileSurface(
        'header',
        async () =>
          (await loadHeader()).runHeader({
            file: request.eml ?? '',
            resolver: deps.resolver,
            now: deps.now,
            log: deps.log,
          }),
        deps,
      )
    : Promise.resolve(null);
  const posture = await started.result;
  const offline = (request.rua?.length ?? 0) > 0 || Boolean(request.eml);
  const resolverName = `the DNS resolver ${deps.resolverName ?? 'of this system'}`;
  let dnsDown: string | null = null;
  if (!posture.domainAnswered) {
    const probe = await probeResolver(deps.resolver);
    dnsDown = probe.working
      ? `no DNS answer at all for ${request.domain} (${resolverName} works: the domain's nameservers do not answer): ${posture.errors[0]?.message ?? 'no answer'}`
      : `${resolverName} is unreachable or not resolving: it ${probe.why}; no DNS answer for ${request.domain} either: ${posture.errors[0]?.message ?? 'no answer'}`;
  }
  if (dnsDown !== null && !offline) return { kind: 'could_not_start', message: dnsDown };
  deps.log('posture finished', {
    domain: request.domain,
    score: posture.surface.score,
    findings: posture.findings.length,
    errors: posture.errors.length,
  });
  const [existence, reputation, discover, leak] = await Promise.all([
    dnsDown === null ? checkDomainExistence(request.domain, deps.resolver) : ({ exists: true } as const),
    reputationRun,
    discoverRun,
    leakRun,
  ]);
  // NXDOMAIN for the domain and every parent: a domain under a TLD that does not exist, or a
  // resolver that answers NXDOMAIN for everything. Only the root zone tells them apart.
  if (!existence.exists && existence.evidence.closest_existing_parent === null && !heard.otherThanNxdomain) {
    const probe = await probeResolver(deps.resolver);
    if (!probe.working)
      dnsDown = `${resolverName} is not resolving: it answers NXDOMAIN for ${request.domain} and every parent, and ${probe.why}`;
  }
  if (dnsDown !== null) {
    if (!offline) return { kind: 'could_not_start', message: dnsDown };
    deps.log('dns unavailable', { domain: request.domain, message: dnsDown });
  }
  if (!existence.exists && dnsDown === null)
    deps.log('domain does not exist', { domain: request.domain, closest_existing_parent: existence.evidence.closest_existing_parent });
  const keep = (item: { rule_id: string }): boolean => existence.exists || !MISSING_RECORD_RULES.has(item.rule_id);
  const rua = await ruaRun;
  const header = await headerRun;
  if (dnsDown !== null) return { kind: 'report', report: offlineReport(request, deps, startedAt, posture.surface, dnsDown, rua, header) };

  const adversary = withAdversaryFindings(
    request.domain,
    optIn?.techniques ?? [],
    [...posture.findings, ...reputation.findings, ...(discover?.findings ?? []), ...(leak?.findings ?? [])].filter(keep),
    leak,
  );
  const findings = adversary.findings.concat(rua?.findings ?? [], header?.findings ?? []);
  const recorder = new CheckRecorder(request.domain, deps.now);
  const requested = requestedSurfaces(request);
  if (existence.exists) {
    recorder
      .surface(
        'posture',
        { status: posture.surface.status, data: {}, findings: posture.findings, errors: posture.errors, checks: posture.checks },
        '',
      )
      .surface('reputation', request.reputation === null ? null : reputation, 'disabled with --no-reputation')
      .surface('discover', discover, 'not requested')
      .surface('leak', leak, 'not requested')
      .adversary(optIn?.techniques ?? [], findings, adversary.checks);
  } else {
    // A domain that does not exist has no records to judge: every check that asks DNS about it is an error, never a pass.
    recorder.found(
      findings.filter((item) => item.rule_id.split('.')[1] !== 'header' && item.rule_id !== 'mailscan.dmarc.rua_misalignment'),
    );
    recordNotRun(recorder, request, requested, `${request.domain} does not exist (NXDOMAIN)`);
  }
  recorder.surface('rua', rua, 'not requested').surface('header', header, 'not requested');
  const { checks, status } = recorder.finish();
  const graded = existence.exists && posture.surface.score !== null && posture.surface.grade !== null;

  // The checks are the ReportBuilder's (already the kit's shape): set beside the parsed report, not parsed again.
  const parsed = reportSchema.parse({
    scanner: { name: SCANNER_NAME, version: SCANNER_VERSION },
    domain: request.domain,
    target: request.domain,
    status,
    ...(graded ? { summary: { score: posture.surface.score, grade: posture.surface.grade } } : {}),
    // Not a domain without records but no domain at all (a typo, an expired registration): the runner fails the target.
    ...(existence.exists ? {} : { failure: `${request.domain} does not exist (NXDOMAIN)` }),
    domain_exists: existence.exists,
    ...(existence.exists ? {} : { nonexistence: existence.evidence }),
    started_at: startedAt.toISOString(),
    finished_at: deps.now().toISOString(),
    surfaces: {
      // A score of 0 would grade records that cannot exist: a domain that does not exist has none.
      posture: existence.exists ? posture.surface : { ...posture.surface, score: null, grade: null },
      reputation: { ...reputation.data, status: reputation.status },
      discover: discover ? { ...discover.data, status: discover.status } : NOT_REQUESTED,
      leak: leak ? { ...leak.data, status: leak.status } : NOT_REQUESTED,
      rua: rua === null ? NOT_REQUESTED : { ...rua.data, status: rua.status },
      header: header === null ? NOT_REQUESTED : { ...header.data, status: header.status },
    },
    findings,
    ...(optIn && optIn.techniques.length > 0 ? { techniques: optIn.techniques } : {}),
    errors: [
      ...posture.errors,
      ...reputation.errors,
      ...(discover?.errors ?? []),
      ...(leak?.errors ?? []),
      ...(rua?.errors ?? []),
      ...(header?.errors ?? []),
    ],
  });
  return { kind: 'report', report: { ...parsed, checks } };
}

/**
 * DNS is down (the resolver, or every nameserver of the domain): nothing DNS said is reported,
 * because a dead resolver's NXDOMAIN would read as missing records. The offline surfaces (aggregate
 * reports, a message) need no DNS to be read, so they still report; `domain_exists` is null: unknown.
 */
function offlineReport(
  request: ScanRequest,
  deps: ScanDependencies,
  startedAt: Date,
  posture: PostureSurface,
  message: string,
  rua: SurfaceResult<Record<string, unknown>> | null,
  header: SurfaceResult<Record<string, unknown>> | null,
): Report {
  const networked = (surface: 'reputation' | 'discover' | 'leak', requested: boolean) =>
    requested
      ? { status: 'error', reason: message }
      : surface === 'reputation'
        ? { status: 'skipped', reason: 'disabled with --no-reputation' }
        : NOT_REQUESTED;
  // Nothing DNS said is evidence now: every check that asks DNS is an error with the resolver's reason.
  const recorder = new CheckRecorder(request.domain, deps.now);
  recordNotRun(recorder, request, requestedSurfaces(request), message);
  recorder.surface('rua', rua, 'not requested').surface('header', header, 'not requested');
  const { checks, status } = recorder.finish();
  const parsed = reportSchema.parse({
    scanner: { name: SCANNER_NAME, version: SCANNER_VERSION },
    domain: request.domain,
    target: request.domain,
    status,
    domain_exists: null,
    started_at: startedAt.toISOString(),
    finished_at: deps.now().toISOString(),
    surfaces: {
      posture: unansweredPosture(posture, message),
      reputation: networked('reputation', request.reputation !== null),
      discover: networked('discover', request.optIn?.discover ?? false),
      leak: networked('leak', request.optIn?.leak ?? false),
      rua: rua === null ? NOT_REQUESTED : { ...rua.data, status: rua.status },
      header: header === null ? NOT_REQUESTED : { ...header.data, status: header.status },
    },
    findings: [...(rua?.findings ?? []), ...(header?.findings ?? [])],
    errors: [{ surface: 'posture', check: 'dns', message }, ...(rua?.errors ?? []), ...(header?.errors ?? [])],
  });
  return { ...parsed, checks };
}

/** The DNS surfaces this scan was asked to run. */
function requestedSurfaces(request: ScanRequest): Set<Surface> {
  const optIn = request.optIn ?? null;
  return new Set<Surface>([
    'posture',
    ...(request.reputation === null ? [] : (['reputation'] as const)),
    ...(optIn?.discover ? (['discover'] as const) : []),
    ...(optIn?.leak ? (['leak'] as const) : []),
    ...((optIn?.techniques.length ?? 0) > 0 ? (['adversary'] as const) : []),
  ]);
}

/** Every requested DNS surface's checks are errors for `message`; the others say why they did not run. */
function recordNotRun(recorder: CheckRecorder, request: ScanRequest, requested: ReadonlySet<Surface>, message: string): void {
  for (const surface of DNS_SURFACES) {
    if (requested.has(surface)) recorder.error([surface], message);
    else
      recorder.skip(
        surface,
        surface === 'reputation'
          ? 'disabled with --no-reputation'
          : surface === 'adversary'
            ? 'no adversary technique requested'
            : 'not requested',
      );
  }
}

/**
 * A file surface's fault costs the surface, not the report. The surfaces are imported on demand so
 * a scan without --rua or --eml never loads their parsers (mailauth above all).
 */
async function runFileSurface(
  surface: string,
  run: () => Promise<SurfaceResult<Record<string, unknown>>>,
  deps: ScanDependencies,
): Promise<SurfaceResult<Record<string, unknown>>> {
  try {
    return await run();
  } catch (error) {
    deps.log(`${surface} failed`, { message: (error as Error).message });
    return {
      status: 'error',
      data: {},
      findings: [],
      errors: [{ surface, check: surface, message: `${surface} failed: ${(error as Error).message}` }],
    };
  }
}

/** The base findings and the adversary.email.* ones the requested techniques read off them, with the techniques' checks. */
function withAdversaryFindings(
  domain: string,
  techniques: readonly Technique[],
  base: ReportFinding[],
  leak: SurfaceResult<Record<string, unknown>> | null,
): { findings: ReportFinding[]; checks: RecordedCheck[] } {
  if (techniques.length === 0) return { findings: base, checks: [] };
  const lookalikes = (
    (
      leak?.data.lookalikes as
        { registered_domains?: { domain: string; family: string; mx: string[]; a: string[]; aaaa: string[] }[] } | undefined
    )?.registered_domains ?? []
  ).map((item) => ({ lookalike: item.domain, family: item.family, mx: item.mx, addresses: [...item.a, ...item.aaaa] }));
  const derived = runTechniques(domain, techniques, base, lookalikes);
  return { findings: [...base, ...derived.findings], checks: derived.checks };
}

/** A surface's fault or the scan deadline costs that surface, not the report. */
async function runSurfaceSafely(
  surface: 'reputation' | 'discover' | 'leak',
  run: () => Promise<SurfaceResult<Record<string, unknown>>>,
  deps: ScanDependencies,
): Promise<SurfaceResult<Record<string, unknown>>> {
  const failed = (message: string): SurfaceResult<Record<string, unknown>> => ({
    status: 'error',
    data: {},
    findings: [],
    errors: [{ surface, check: surface, message }],
  });
  const deadline = deps.deadline;
  let onDeadline: (() => void) | undefined;
  const deadlineReached = new Promise<SurfaceResult<Record<string, unknown>>>((resolve) => {
    if (!deadline) return;
    onDeadline = () => resolve(failed(`scan deadline reached before the ${surface} checks finished`));
    if (deadline.aborted) onDeadline();
    else deadline.addEventListener('abort', onDeadline, { once: true });
  });
  try {
    return await Promise.race([run(), deadlineReached]);
  } catch (error) {
    deps.log(`${surface} failed`, { message: (error as Error).message });
    return failed(`${surface} checks failed: ${(error as Error).message}`);
  } finally {
    if (onDeadline) deadline?.removeEventListener('abort', onDeadline);
  }
}
