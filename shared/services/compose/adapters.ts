import type { Clock } from '../../ports/clock.ts';
import type { FindingRepository } from '../../ports/finding-repository.ts';
import type { TargetPolicy } from '../../domain/network-policy.ts';
import type { ScanType } from '../../domain/scan-types.ts';
import type { IdGenerator } from '../../ports/id-generator.ts';
import type { IssueRepository } from '../../ports/issue-repository.ts';
import type { Logger } from '../../ports/logger.ts';
import type { ScanRepository } from '../../ports/scan-repository.ts';
import type { ScheduleRepository } from '../../ports/schedule-repository.ts';

/** The adapters every service shares: the repositories, time, ids and the logger. */
export interface ScanServiceAdapters {
  schedules: ScheduleRepository;
  scans: ScanRepository;
  findings: FindingRepository;
  issues: IssueRepository;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Which targets the deployment refuses (default: private networks refused too). */
  targetPolicy?: TargetPolicy;
  /**
   * The scan types this deployment has a runner for: in AWS the engines of layers/manifests.ts
   * (runnerScanTypes), locally the runners `npm start` registered. Others are refused on create.
   */
  runnerTypes: ReadonlySet<ScanType>;
}

/** The shared adapters one service uses: a composition root builds only those. */
export type Adapters<K extends keyof ScanServiceAdapters> = Pick<ScanServiceAdapters, K>;
