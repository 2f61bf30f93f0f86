import type { TargetPolicy } from '../domain/network-policy.ts';
import type { Clock } from '../ports/clock.ts';
import type { FindingRepository } from '../ports/finding-repository.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { MessageQueue } from '../ports/message-queue.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { RunnerRegistry } from '../ports/scan-runner.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import type { TriggerScheduler } from '../ports/trigger-scheduler.ts';
import type { ArtifactReferences } from './artifact-service.ts';
import { makeDispatchService } from './dispatch-service.ts';
import { makeReconcileService, type UnrecognisedTriggers } from './reconcile-service.ts';
import { makeScanEngine } from './scan-engine.ts';
import { makeScanService } from './scan-service.ts';
import { makeScheduleService } from './schedule-service.ts';

/** The adapters every service shares: the three repositories, time, ids and the logger. */
export interface ScanServiceAdapters {
  schedules: ScheduleRepository;
  scans: ScanRepository;
  findings: FindingRepository;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Which targets the deployment refuses (default: private networks refused too). */
  targetPolicy?: TargetPolicy;
}

/**
 * The one wiring of the services, used by the Lambda composition roots (functions/) and by the
 * local runtime, so AWS and `npm start` cannot drift: which repository each service gets, the
 * engine inside dispatch. Each function builds only the services it runs, passing the adapters
 * only that service needs (a trigger scheduler, a queue, runners).
 */
export function composeScanServices({ schedules, scans, findings, clock, ids, logger, targetPolicy }: ScanServiceAdapters) {
  return {
    scheduleService: ({ triggers, quota }: { triggers: TriggerScheduler; quota: number }) =>
      makeScheduleService({ repo: schedules, triggers, clock, ids, logger, quota, targetPolicy }),

    scanService: ({ queue, scanLogs, artifacts }: { queue: MessageQueue; scanLogs: ScanLogs; artifacts: ArtifactReferences }) =>
      makeScanService({ scans, findings, schedules, queue, ids, clock, scanLogs, logger, artifacts, targetPolicy }),

    dispatchService: ({ runners, scanLogs, metrics }: { runners: RunnerRegistry; scanLogs: ScanLogs; metrics?: Metrics }) => {
      const engine = makeScanEngine({ scans, findings, schedules, runners, clock, scanLogs, metrics });
      return makeDispatchService({ scans, schedules, engine, ids, clock, scanLogs, logger, metrics });
    },

    reconcileService: ({ triggers, unrecognised }: { triggers: TriggerScheduler; unrecognised?: UnrecognisedTriggers }) =>
      makeReconcileService({ repo: schedules, triggers, unrecognised, logger }),
  };
}
