import type { ScanLogLocation } from '../domain/scan-job.ts';
import type { ScanLogLine } from '../domain/scan-log.ts';
import type { Logger } from './logger.ts';
import type { ResourceClass } from '../../lib/engine-manifest.ts';

/**
 * Port for scan logs: every line of a scan carries tenant, scan_id and schedule_id, and the job's
 * `log` field says where to find them (CloudWatch in AWS, a file locally).
 */
export interface ScanLogs {
  /**
   * Where the scan's lines will be: in AWS the log group of the dispatch function of its resource
   * class (DESIGN §11; this function's own, or standard's, when absent).
   */
  location(scanId: string, resourceClass?: ResourceClass): ScanLogLocation;
  loggerFor(keys: { tenant: string; scan_id: string; schedule_id: string | null }): Logger;
  /**
   * The first `maxLines` lines of the scan's log that carry `tenant`, oldest first, or null when
   * this adapter cannot read lines back (the caller then points at `location`). A scan that has
   * logged nothing yet has no lines.
   */
  read(
    tenant: string,
    scanId: string,
    maxLines: number,
    /** The job's stored `log`: the adapter reads the log group it names, when it is one it may read. */
    stored?: ScanLogLocation,
  ): Promise<{ lines: ScanLogLine[]; truncated: boolean } | null>;
}
