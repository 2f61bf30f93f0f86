import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { decodeTime } from 'ulid';
import { scanLogLineOf, type ScanLogLine } from '../../domain/scan-log.ts';
import type { ScanLogs } from '../../ports/scan-log.ts';
import type { ResourceClass } from '../../../lib/engine-manifest.ts';

/** Pages of FilterLogEvents one read follows at most: a scan logs tens of lines, a runaway one is cut. */
const MAX_PAGES = 20;
/** Lines are looked for from a minute before the scan's id was made (its ULID carries the time). */
const LEAD_MS = 60_000;

/**
 * Scan logs in AWS: the dispatch function's log group, each line carrying tenant, scan_id and
 * schedule_id, found with a Logs Insights query the job's `log` field spells out. With a client
 * (the scans function, granted logs:FilterLogEvents on that group only) the lines are read back
 * for GET /api/scans/{id}/log/; without one (dispatch, which only writes) `read` says it cannot.
 */
export function makeCloudWatchScanLogs(
  defaultLogGroup: string,
  base: PowertoolsLogger,
  client?: () => Promise<Pick<CloudWatchLogsClient, 'send'>>,
  /**
   * Each resource class's dispatch log group (DESIGN §11; the scans function's DISPATCH_LOG_GROUP
   * and DISPATCH_LOG_GROUP_LONG): a job's lines are in its class's group. Absent: `defaultLogGroup` for all.
   */
  classLogGroups: Partial<Record<ResourceClass, string>> = {},
): ScanLogs {
  const readable = new Set([defaultLogGroup, ...Object.values(classLogGroups)]);
  return {
    location: (scanId, resourceClass) => ({
      log_group: (resourceClass && classLogGroups[resourceClass]) || defaultLogGroup,
      insights_query: `fields @timestamp, level, message | filter scan_id = '${scanId}' | sort @timestamp asc`,
    }),
    loggerFor: (keys) => base.createChild({ persistentKeys: keys }),
    async read(tenant, scanId, maxLines, stored) {
      if (!client) return null;
      // The job's own group when it is one of the dispatch groups this function may read; a stored
      // location is data, so any other name falls back to the default group rather than being read.
      const named = stored !== undefined && 'log_group' in stored ? stored.log_group : undefined;
      const logGroup = named !== undefined && readable.has(named) ? named : defaultLogGroup;
      const logs = await client();
      const { FilterLogEventsCommand } = await import('@aws-sdk/client-cloudwatch-logs');
      // Both values are checked ids (scan_ + ULID, the tenant pattern of DESIGN §3): nothing in them can
      // change the pattern's meaning.
      const filterPattern = `{ ($.scan_id = "${scanId}") && ($.tenant = "${tenant}") }`;
      const startTime = decodeTime(scanId.replace(/^scan_/, '')) - LEAD_MS;
      const events: { timestamp: number; entry: Record<string, unknown> }[] = [];
      let nextToken: string | undefined;
      let truncated = false;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const answer = await logs.send(
          new FilterLogEventsCommand({ logGroupName: logGroup, filterPattern, startTime, nextToken, limit: maxLines + 1 }),
        );
        for (const event of answer.events ?? []) {
          try {
            events.push({ timestamp: event.timestamp ?? 0, entry: JSON.parse(event.message ?? '') as Record<string, unknown> });
          } catch {
            // Not one of ours (a platform line that happens to match cannot, but a cut line can).
          }
        }
        nextToken = answer.nextToken;
        if (!nextToken || events.length > maxLines) break;
        if (page === MAX_PAGES - 1) truncated = true;
      }
      const lines: ScanLogLine[] = [];
      for (const { entry } of events.sort((a, b) => a.timestamp - b.timestamp)) {
        const line = scanLogLineOf(entry, tenant, scanId);
        if (line === null) continue;
        if (lines.length === maxLines) {
          truncated = true;
          break;
        }
        lines.push(line);
      }
      return { lines, truncated };
    },
  };
}
