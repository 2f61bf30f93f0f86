import { withoutLegacyKeys } from '../domain/scope.ts';
import {
  FINISHED_STATUSES,
  Severity,
  emptySummary,
  type ScanCheck,
  type ChangedIssueIds,
  type ScanChanges,
  type ScanError,
  type ScanJobRecord,
  type ScanStatus,
  type ScanSummary,
} from '../domain/scan-job.ts';
import { RunnerFinding, fingerprintOf, findingIdOf } from '../domain/finding.ts';
import type { IssueRecord } from '../domain/issue.ts';
import { trackIssues, type TargetRun, type TrackedCheck, type TrackedFinding } from '../domain/issue-tracking.ts';
import type { Coverage } from '../domain/coverage.ts';
import { scanEvents } from '../domain/scan-events.ts';
import { noEvents, type EventPublisher } from '../ports/event-publisher.ts';
import { finishedRun, lastRunStatusOf } from '../domain/schedule.ts';
import type { Clock } from '../ports/clock.ts';
import type { FindingRepository } from '../ports/finding-repository.ts';
import type { IssueRepository } from '../ports/issue-repository.ts';
import type { Logger } from '../ports/logger.ts';
import { noMetrics, type Metrics } from '../ports/metrics.ts';
import type { RunnerRegistry, RunnerResult, ScanRunner } from '../ports/scan-runner.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import { mapBounded } from '../../lib/concurrency.ts';
import { targetsAtOnce } from '../domain/resource-class.ts';
import { makeScanOutputs, type OutputArtifacts } from './scan-outputs.ts';

export interface ScanEngineDeps {
  scans: ScanRepository;
  findings: FindingRepository;
  issues: IssueRepository;
  schedules: ScheduleRepository;
  runners: RunnerRegistry;
  clock: Clock;
  scanLogs: ScanLogs;
  /** Scans started and finished, their duration and findings (DESIGN §10). None by default. */
  metrics?: Metrics;
  /** Where scan.finished and the issue events go (DESIGN §15). None by default. */
  events?: EventPublisher;
  /** Time kept back from the invocation for writing findings and the final status. */
  marginMs?: number;
  /** A cap on the targets of one job scanned at once; by default as many as fit the class's memory (targetsAtOnce). */
  targetConcurrency?: number;
  /** Where the documents runners return are kept (artifacts); without it a returned document is an error. */
  outputs?: OutputArtifacts;
}

/**
 * Reads of the scanned targets' issues in flight at once (one Query each), and the cap tests use.
 * Targets themselves run as many at once as fit the class's memory (targetsAtOnce,
 * shared/domain/resource-class.ts): four of a standard engine's 256 MB in 1,024 MB (docs/resource-classes.md).
 */
export const DEFAULT_TARGET_CONCURRENCY = 4;

/**
 * The checks a job stores (they live on the job's item, under DynamoDB's 400 KB item limit): a
 * scan of 100 targets with mailscan's catalogue would not fit. Checks past the bound are not
 * stored, which only means they resolve no issue (docs/engine-contract.md).
 */
export const MAX_STORED_CHECKS = 1500;
const MAX_CHECK_DETAIL = 200;

export type ScanEngine = ReturnType<typeof makeScanEngine>;

/**
 * A check's coverage as the job stores it: whole up to 2 KB (a CIDR and top1000 fit), else left
 * out of the stored copy; the tracker always judges with the runner's whole coverage.
 */
const MAX_STORED_COVERAGE = 2048;
function storedCoverage(coverage: Coverage | undefined): { coverage?: Coverage } {
  if (coverage === undefined || JSON.stringify(coverage).length > MAX_STORED_COVERAGE) return {};
  return { coverage };
}

/** Changed issue ids a job item keeps: 3,000 ids of 36 characters stay far below DynamoDB's 400 KB item. */
export const CHANGED_IDS_KEPT = 3000;

function changeCounts(changes: ReturnType<typeof trackIssues>['changes']): ScanChanges {
  return {
    new: changes.new.length,
    resolved: changes.resolved.length,
    reopened: changes.reopened.length,
    unchanged: changes.unchanged.length,
  };
}

function keptChangeIds(changes: ReturnType<typeof trackIssues>['changes']): ChangedIssueIds {
  let room = CHANGED_IDS_KEPT;
  const keep = (ids: string[]) => {
    const kept = ids.slice(0, Math.max(0, room));
    room -= kept.length;
    return kept;
  };
  const kept = { new: keep(changes.new), resolved: keep(changes.resolved), reopened: keep(changes.reopened) };
  const total = changes.new.length + changes.resolved.length + changes.reopened.length;
  return { ...kept, truncated: total > CHANGED_IDS_KEPT };
}

/** Outcome per DESIGN §4: errors with findings are partial; errors alone, failed. */
export function outcomeOf(findingCount: number, errorCount: number): 'succeeded' | 'partial' | 'failed' {
  if (errorCount === 0) return 'succeeded';
  return findingCount > 0 ? 'partial' : 'failed';
}

/** Runs one runner on one target within `timeoutMs`; a runner that overstays is aborted and counted as an error. */
async function runBounded(runner: ScanRunner, input: Omit<Parameters<ScanRunner['run']>[0], 'signal'>): Promise<RunnerResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${input.timeoutMs} ms`));
    }, input.timeoutMs);
  });
  try {
    return await Promise.race([runner.run({ ...input, signal: controller.signal }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The one path every scan takes (manual, run now, cron fire): mark the job running, run its
 * runner for the target and each entry of `targets`, write the findings, finish the job and its
 * schedule. Safe to run again for a job a crashed worker left running: findings have
 * deterministic ids and the final transition happens once.
 */
export function makeScanEngine({
  scans,
  findings,
  issues,
  schedules,
  runners,
  clock,
  scanLogs,
  metrics = noMetrics,
  events = noEvents,
  marginMs = 10_000,
  targetConcurrency,
  outputs: outputArtifacts,
}: ScanEngineDeps) {
  const scanOutputs = makeScanOutputs({ artifacts: outputArtifacts, scans, clock });
  interface TargetOutcome {
    errors: ScanError[];
    reported: { target: string; finding: RunnerFinding }[];
    checks: ScanCheck[];
    extra: RunnerResult['summary'];
    /** Per target: whether its run was complete and its checks (what the issue tracker resolves on). */
    runs: Omit<TargetRun, 'findings'>[];
    /** The documents the runner returned (its manifest's outputs). */
    outputs: { target: string; output: NonNullable<RunnerResult['outputs']>[number] }[];
  }

  async function runTarget(
    job: ScanJobRecord,
    runner: ScanRunner,
    target: string,
    logger: Logger,
    remainingMs: () => number,
  ): Promise<TargetOutcome> {
    const outcome: TargetOutcome = { errors: [], reported: [], checks: [], extra: {}, runs: [], outputs: [] };
    // Each target gets what is left of the invocation when it starts, so a target queued behind
    // slow ones is refused with a reason instead of overrunning the deadline.
    const timeoutMs = remainingMs() - marginMs;
    if (timeoutMs <= 0) {
      outcome.errors.push({ runner: runner.name, message: `no time left in the invocation for target ${target}` });
      return outcome;
    }
    logger.info('runner started', { runner: runner.name, target, timeout_ms: timeoutMs });
    try {
      // The backfill's provenance tags are taken off here, once, for whichever runner: no engine's scope knows them.
      const scope = withoutLegacyKeys(job.scope);
      const result = await runBounded(runner, { tenant: job.tenant, scanType: job.scan_type, target, scope, timeoutMs, logger });
      for (const [index, finding] of result.findings.entries()) {
        const parsed = RunnerFinding.safeParse(finding);
        if (parsed.success) outcome.reported.push({ target, finding: parsed.data });
        else
          outcome.errors.push({
            runner: runner.name,
            message: `finding ${index} for ${target} is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
          });
      }
      for (const error of result.errors ?? []) {
        outcome.errors.push(
          typeof error === 'string'
            ? { runner: runner.name, message: `${target}: ${error}` }
            : { runner: runner.name, message: `${target}: ${error.check}: ${error.message}`, target, check: error.check },
        );
      }
      outcome.checks = (result.checks ?? []).map((check) => ({
        target,
        id: check.id,
        title: check.title,
        status: check.status,
        detail: check.detail.slice(0, MAX_CHECK_DETAIL),
        ...storedCoverage(check.coverage),
      }));
      outcome.extra = result.summary ?? {};
      outcome.outputs = (result.outputs ?? []).map((output) => ({ target, output }));
      const checks = new Map<string, TrackedCheck>(
        (result.checks ?? []).map((check) => [check.id, { status: check.status, ...(check.coverage ? { coverage: check.coverage } : {}) }]),
      );
      outcome.runs.push({ target, complete: outcome.errors.length === 0, checks });
      logger.info('runner finished', { runner: runner.name, target, findings: result.findings.length, errors: result.errors?.length ?? 0 });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcome.errors.push({ runner: runner.name, message: `${target}: ${message}` });
      logger.warn('runner failed', { runner: runner.name, target, error: message });
    }
    return outcome;
  }

  async function collect(job: ScanJobRecord, logger: Logger, remainingMs: () => number): Promise<TargetOutcome> {
    const runner = runners.get(job.scan_type);
    if (!runner)
      return {
        errors: [{ runner: job.scan_type, message: `no runner for scan_type ${job.scan_type}` }],
        reported: [],
        checks: [],
        extra: {},
        runs: [],
        outputs: [],
      };
    // Results keep the input order, so a job's findings and errors are listed target by target
    // whatever finishes first; runTarget never throws.
    const outcomes = await mapBounded([job.target, ...job.targets], targetsAtOnce(job.scan_type, targetConcurrency), (target) =>
      runTarget(job, runner, target, logger, remainingMs),
    );
    return {
      errors: outcomes.flatMap((outcome) => outcome.errors),
      reported: outcomes.flatMap((outcome) => outcome.reported),
      // A check left out resolves nothing, so the bound can only withhold a resolution, never invent one.
      checks: outcomes.flatMap((outcome) => outcome.checks).slice(0, MAX_STORED_CHECKS),
      // In target order, as before: a later target's summary keys win.
      extra: Object.assign({}, ...outcomes.map((outcome) => outcome.extra)) as RunnerResult['summary'],
      runs: outcomes.flatMap((outcome) => outcome.runs),
      outputs: outcomes.flatMap((outcome) => outcome.outputs),
    };
  }

  /**
   * The known issues of every target whose run can change one (it reported something, or it is
   * complete and has checks to resolve on): one Query per target (docs/issues.md).
   */
  async function knownIssues(job: ScanJobRecord, runs: TargetOutcome['runs'], reported: TargetOutcome['reported']): Promise<IssueRecord[]> {
    const reporting = new Set(reported.map((item) => item.target));
    const targets = [
      ...new Set(runs.filter((run) => reporting.has(run.target) || (run.complete && run.checks.size > 0)).map((run) => run.target)),
    ];
    const found = await mapBounded(targets, DEFAULT_TARGET_CONCURRENCY, (target) => issues.ofTarget(job.tenant, target));
    return found.flat();
  }

  function toRecords(
    job: ScanJobRecord,
    reported: { target: string; finding: RunnerFinding }[],
    firstSeen: ReadonlyMap<string, string>,
  ): TrackedFinding[] {
    const now = clock.now().toISOString();
    const byId = new Map<string, TrackedFinding>();
    const printed = reported.map(({ target, finding }) => ({ target, finding, fingerprint: fingerprintOf(job.tenant, target, finding) }));
    const storedByRef = new Map(
      printed.filter((item) => item.finding.ref !== undefined).map((item) => [`${item.target}\u0000${item.finding.ref}`, item.fingerprint]),
    );
    const withPrints = printed.map((item) => {
      const base = item.finding.evidence.base_fingerprint;
      const stored = typeof base === 'string' ? storedByRef.get(`${item.target}\u0000${base}`) : undefined;
      if (stored === undefined) return item;
      const finding = { ...item.finding, evidence: { ...item.finding.evidence, base_fingerprint: stored } };
      return { target: item.target, finding, fingerprint: fingerprintOf(job.tenant, item.target, finding) };
    });
    for (const { target, finding, fingerprint } of withPrints) {
      const id = findingIdOf(job.id, fingerprint);
      byId.set(id, {
        id,
        tenant: job.tenant,
        scan_id: job.id,
        schedule_id: job.schedule_id,
        scan_type: job.scan_type,
        target,
        rule_id: finding.rule_id,
        subject: finding.subject ?? finding.evidence_key ?? '',
        locations: finding.locations ?? [],
        severity: finding.severity,
        title: finding.title,
        description: finding.description,
        evidence: finding.evidence,
        remediation: finding.remediation,
        fingerprint,
        first_seen_at: firstSeen.get(fingerprint) ?? now,
        last_seen_at: now,
        created_at: now,
      });
    }
    return [...byId.values()];
  }

  return {
    /**
     * Executes a queued (or crash-abandoned running) job to its final state; returns the job as
     * stored afterwards. A job already finished is returned untouched. `owned` skips the move to
     * running for a job its caller inserted running a moment ago (a cron fire's claim).
     */
    async execute(job: ScanJobRecord, remainingMs: () => number, { owned = false }: { owned?: boolean } = {}): Promise<ScanJobRecord> {
      if (FINISHED_STATUSES.includes(job.status)) return job;
      const logger = scanLogs.loggerFor({ tenant: job.tenant, scan_id: job.id, schedule_id: job.schedule_id });
      const startedAt = job.started_at ?? clock.now().toISOString();
      // `owned`: the caller has just inserted this job as running, so nobody else can have moved it.
      if (!owned && !(await scans.transition(job.tenant, job.id, ['queued', 'running'], { status: 'running', started_at: startedAt }))) {
        return (await scans.get(job.tenant, job.id)) ?? job;
      }
      logger.info('scan started', {
        scan_type: job.scan_type,
        targets: 1 + job.targets.length,
        redelivered: !owned && job.status === 'running',
      });
      // Counted once per job: when this worker took it from queued, or inserted it running (owned).
      // A redelivered running job already counted when its first worker took it.
      if (owned || job.status === 'queued') metrics.record('ScansStarted', 1, { scan_type: job.scan_type });

      const { errors, reported, checks, extra, runs, outputs } = await collect(job, logger, remainingMs);
      // The documents first: one that cannot be kept is an error of the scan, like a failed check.
      const kept = await scanOutputs.save(job, outputs);
      for (const error of kept.errors) errors.push({ runner: job.scan_type, message: `${error.target}: ${error.message}` });
      // First seen is the issue's; the issues are written after the findings, so a worker dying in
      // between leaves findings whose issues the redelivery writes (docs/issues.md).
      const known = await knownIssues(job, runs, reported);
      const records = toRecords(job, reported, new Map(known.map((issue) => [issue.fingerprint, issue.first_seen_at])));
      await findings.save(
        job.tenant,
        records.map(({ locations: _locations, ...record }) => record),
      );
      const tracked = trackIssues({
        job,
        now: clock.now().toISOString(),
        existing: known,
        runs: runs.map((run) => ({ ...run, findings: records.filter((record) => record.target === run.target) })),
      });
      await issues.save(job.tenant, tracked.writes);

      const status: ScanStatus = outcomeOf(records.length, errors.length);
      const summary: ScanSummary = { ...emptySummary(), ...extra };
      for (const record of records) summary[record.severity] += 1;
      const changes = {
        status,
        finished_at: clock.now().toISOString(),
        finding_count: records.length,
        summary,
        errors,
        checks,
        changes: { ...changeCounts(tracked.changes), ...(kept.components ? { components: kept.components } : {}) },
        change_ids: keptChangeIds(tracked.changes),
        ...(kept.outputs.length > 0 ? { outputs: kept.outputs } : {}),
      };
      // Published before the job is closed, so a worker dying in between publishes again on
      // redelivery (same event ids); a bus that refuses never fails the scan.
      const latest = new Map([...known, ...tracked.writes].map((issue) => [issue.id, issue]));
      try {
        await events.publish(scanEvents({ ...job, ...changes }, tracked, latest, changes.finished_at));
      } catch (error) {
        logger.error('events not published', { error: error instanceof Error ? error.message : String(error) });
      }
      const finished = await scans.transition(job.tenant, job.id, ['running'], changes);
      if (!finished) {
        logger.warn('scan finished after another path closed it', { status });
        return (await scans.get(job.tenant, job.id)) ?? job;
      }
      metrics.record('ScansFinished', 1, { status });
      metrics.record('ScanDuration', Date.parse(changes.finished_at) - Date.parse(startedAt), { scan_type: job.scan_type });
      for (const severity of Severity.options) if (summary[severity] > 0) metrics.record('Findings', summary[severity], { severity });
      if (errors.length > 0) logger.warn('scan finished with errors', { status, errors });
      else logger.info('scan finished', { status, findings: records.length });
      if (job.schedule_id && !(await schedules.recordRun(job.tenant, job.schedule_id, finishedRun(job, lastRunStatusOf(status))))) {
        logger.info('schedule status left to a newer scan or a deleted schedule', { status });
      }
      // The counts only: the component lists can hold 1,000 purls.
      const { components, ...issueCounts } = changes.changes;
      logger.info('issues tracked', issueCounts);
      if (components) logger.info('components compared', { ...components, added: undefined, removed: undefined });
      return { ...job, ...changes, status, started_at: startedAt };
    },
  };
}
