import type { ScanLogLocation } from '../domain/scan-job.ts';
import type { Logger } from './logger.ts';

/**
 * Port for scan logs: every line of a scan carries tenant, scan_id and schedule_id, and the job's
 * `log` field says where to find them (CloudWatch in AWS, a file locally).
 */
export interface ScanLogs {
  location(scanId: string): ScanLogLocation;
  loggerFor(keys: { tenant: string; scan_id: string; schedule_id: string | null }): Logger;
}
