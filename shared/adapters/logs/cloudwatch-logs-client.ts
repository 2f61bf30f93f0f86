import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/**
 * The CloudWatch Logs client, made at the first scan-log read: the scans function's other routes
 * (and its cold start) never load it.
 */
export function lazyCloudWatchLogsClient(): () => Promise<CloudWatchLogsClient> {
  let client: Promise<CloudWatchLogsClient> | undefined;
  return () =>
    (client ??= import('@aws-sdk/client-cloudwatch-logs').then(
      ({ CloudWatchLogsClient: Client }) => new Client({ requestHandler: boundedRequestHandler(API_ATTEMPT) }),
    ));
}
