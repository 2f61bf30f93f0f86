import type { EventPublisher } from '../../ports/event-publisher.ts';
import type { Metrics } from '../../ports/metrics.ts';
import type { ScanLogs } from '../../ports/scan-log.ts';
import type { RunnerRegistry } from '../../ports/scan-runner.ts';
import { makeDispatchService } from '../dispatch-service.ts';
import { makeScanEngine } from '../scan-engine.ts';
import type { OutputArtifacts } from '../scan-outputs.ts';
import type { ScanServiceAdapters } from './adapters.ts';

/** The dispatch service with its scan engine (the two queue consumers, the local runtime). */
export function composeDispatchService(
  { schedules, scans, findings, issues, clock, ids, logger }: ScanServiceAdapters,
  {
    runners,
    scanLogs,
    metrics,
    events,
    outputs,
    marginMs,
  }: {
    runners: RunnerRegistry;
    scanLogs: ScanLogs;
    metrics?: Metrics;
    events?: EventPublisher;
    outputs?: OutputArtifacts;
    /** Time kept back from each invocation: its resource class's (DESIGN §11), so a scan ends at the class's deadline. */
    marginMs?: number;
  },
) {
  const engine = makeScanEngine({ scans, findings, issues, schedules, runners, clock, scanLogs, metrics, events, outputs, marginMs });
  return makeDispatchService({ scans, schedules, engine, ids, clock, scanLogs, logger, metrics });
}
