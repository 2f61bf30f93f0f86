import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import type { ScanType } from '../../shared/domain/scan-types.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { MetricName, Metrics } from '../../shared/ports/metrics.ts';
import type { RunnerResult, ScanRunner } from '../../shared/ports/scan-runner.ts';
import type { ScanLogs } from '../../shared/ports/scan-log.ts';
import { makeDispatchService } from '../../shared/services/dispatch-service.ts';
import { makeScanEngine } from '../../shared/services/scan-engine.ts';
import { InMemoryFindingRepository } from '../fakes/in-memory-finding-repository.ts';
import { InMemoryIssueRepository } from '../fakes/in-memory-issue-repository.ts';
import { InMemoryScanRepository } from '../fakes/in-memory-scan-repository.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { ScriptedRunner } from './test-runners.ts';

/** One line a scan logged: its keys (tenant, scan_id, schedule_id), level, message and fields. */
export interface ScanLogLine {
  scan_id: string;
  level: keyof Logger;
  message: string;
  fields: Record<string, unknown>;
}

/** The margin the engine keeps back from the invocation in these tests. */
export const MARGIN_MS = 1_000;

/**
 * The scan path on in-memory fakes, for unit tests of the dispatch service and the scan engine:
 * the repositories (each held to its port's contract suite), a manual clock, ids derived from it,
 * a scripted runner for email_security, and every metric and scan log line recorded.
 */
export function scanPath({ targetConcurrency, runner = new ScriptedRunner() }: { targetConcurrency?: number; runner?: ScanRunner } = {}) {
  const clock = new ManualClock('2026-03-02T10:00:00.000Z');
  const ids = makeUlidGenerator(() => clock.now().getTime());
  const scans = new InMemoryScanRepository();
  const findings = new InMemoryFindingRepository();
  const issues = new InMemoryIssueRepository();
  const schedules = new InMemoryScheduleRepository();
  const metrics: { name: MetricName; value: number; dimensions: Record<string, string> }[] = [];
  const recordingMetrics: Metrics = { record: (name, value, dimensions) => metrics.push({ name, value, dimensions }) };
  const lines: ScanLogLine[] = [];
  const scanLogs: ScanLogs = {
    location: (scanId) => ({ file: `/logs/${scanId}.log` }),
    loggerFor: ({ scan_id }) => {
      const line =
        (level: keyof Logger) =>
        (message: string, fields: Record<string, unknown> = {}) =>
          lines.push({ scan_id, level, message, fields });
      return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
    },
    read: async (_tenant, scanId, maxLines) => {
      const own = lines.filter((entry) => entry.scan_id === scanId);
      return {
        lines: own
          .slice(0, maxLines)
          .map(({ level, message, fields }) => ({ timestamp: clock.now().toISOString(), level, message, fields })),
        truncated: own.length > maxLines,
      };
    },
  };
  const runners = new Map<ScanType, ScanRunner>([['email_security', runner]]);
  const engine = makeScanEngine({
    scans,
    findings,
    issues,
    schedules,
    runners,
    clock,
    scanLogs,
    metrics: recordingMetrics,
    marginMs: MARGIN_MS,
    targetConcurrency,
  });
  const dispatch = makeDispatchService({ scans, schedules, engine, ids, clock, scanLogs, logger: silentLogger, metrics: recordingMetrics });
  return {
    clock,
    ids,
    scans,
    findings,
    issues,
    schedules,
    runners,
    engine,
    dispatch,
    metrics,
    lines,
    /** How many of `name` were recorded. */
    count: (name: MetricName) => metrics.filter((metric) => metric.name === name).reduce((sum, metric) => sum + metric.value, 0),
  };
}

/**
 * A runner that holds every call until the test settles `result`: `started` resolves at its first
 * call, so a test acts while a scan is running without waiting for time.
 */
export function heldRunner(): { runner: ScriptedRunner; started: Promise<void>; result: ReturnType<typeof deferred<RunnerResult>> } {
  const result = deferred<RunnerResult>();
  const started = deferred<void>();
  const runner = new ScriptedRunner();
  runner.behaviour = () => {
    started.resolve();
    return result.promise;
  };
  return { runner, started: started.promise, result };
}

/** A deferred promise: a runner that waits on it finishes when the test says so. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
