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
 * A structured log line (a JSON object with timestamp, level, message, the correlation keys and
 * fields) as the API returns it, or null when it is not a line of `tenant`'s scan `scanId`. Both
 * keys are checked on every line, whatever found it: a CloudWatch filter pattern is a search, not
 * a guarantee (a line whose JSON the pattern misreads, or a pattern another reader widened), and
 * scan ids are unique across tenants, but the tenant is checked anyway.
 */
export function scanLogLineOf(entry: Record<string, unknown>, tenant: string, scanId: string): ScanLogLine | null {
  if (entry.tenant !== tenant || entry.scan_id !== scanId) return null;
  const { timestamp, level, message, tenant: _tenant, scan_id: _scan, schedule_id: _schedule, ...fields } = entry;
  return { timestamp: String(timestamp), level: String(level), message: String(message), fields };
}

/**
 * GET /api/scans/{id}/log/: the scan's log lines, oldest first (a local file, or CloudWatch Logs
 * in AWS). `readable` is false where the deployment cannot read them back; the UI then links to
 * `location`.
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
