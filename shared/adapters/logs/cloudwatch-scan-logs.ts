import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { ScanLogs } from '../../ports/scan-log.ts';

/**
 * Scan logs in AWS: the dispatch function's log group, each line carrying tenant, scan_id and
 * schedule_id, found with a Logs Insights query the job's `log` field spells out.
 */
export function makeCloudWatchScanLogs(logGroup: string, base: PowertoolsLogger): ScanLogs {
  return {
    location: (scanId) => ({
      log_group: logGroup,
      insights_query: `fields @timestamp, level, message | filter scan_id = '${scanId}' | sort @timestamp asc`,
    }),
    loggerFor: (keys) => base.createChild({ persistentKeys: keys }),
    // Reading lines back needs the CloudWatch Logs client and a logs:FilterLogEvents grant, which
    // this deployment does not carry yet: the API says so and the UI links to Logs Insights.
    read: () => Promise.resolve(null),
  };
}
