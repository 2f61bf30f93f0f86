import * as z from 'zod';
import { ScanLogLocation } from './scan-job.ts';

/** The most lines GET /api/scans/{id}/log/ returns: a scan logs tens of lines, a runaway one is cut. */
export const MAX_SCAN_LOG_LINES = 1000;

/** One line of a scan's log, its correlation keys (tenant, scan_id, schedule_id) left out. */
export const ScanLogLine = z.lazy(() =>
  z.object({
    timestamp: z.string(),
    level: z.string(),
    message: z.string(),
    fields: z.record(z.string(), z.unknown()),
  }),
);
export type ScanLogLine = z.infer<typeof ScanLogLine>;

/**
 * GET /api/scans/{id}/log/: the scan's log lines, oldest first. `readable` is false where this
 * deployment cannot read them through the API (AWS today: the lines are in CloudWatch, at
 * `location`, which the UI links to).
 */
export const ScanLogView = z.lazy(() =>
  z.object({
    scan_id: z.string(),
    readable: z.boolean(),
    items: z.array(ScanLogLine),
    truncated: z.boolean(),
    location: ScanLogLocation,
  }),
);
export type ScanLogView = z.infer<typeof ScanLogView>;
