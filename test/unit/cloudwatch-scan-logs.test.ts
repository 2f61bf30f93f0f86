import { Logger } from '@aws-lambda-powertools/logger';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { decodeTime } from 'ulid';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeCloudWatchScanLogs } from '../../shared/adapters/logs/cloudwatch-scan-logs.ts';

const SCAN = 'scan_01KB1V0T4K0000000000000000';
const cloudwatch = mockClient(CloudWatchLogsClient);
const line = (time: number, message: string, extra: Record<string, unknown> = {}) => ({
  timestamp: time,
  message: JSON.stringify({
    timestamp: new Date(time).toISOString(),
    level: 'INFO',
    message,
    tenant: 'acme',
    scan_id: SCAN,
    schedule_id: null,
    ...extra,
  }),
});

describe('scan logs read back from CloudWatch (GET /api/scans/{id}/log/ in AWS)', () => {
  const logs = makeCloudWatchScanLogs('/aws/lambda/dispatch', new Logger({ logLevel: 'SILENT' }), async () => new CloudWatchLogsClient({}));
  beforeEach(() => cloudwatch.reset());

  it("filters the dispatch log group on the scan and tenant from the scan's own time, follows pages, and orders the lines", async () => {
    cloudwatch
      .on(FilterLogEventsCommand)
      .resolvesOnce({ events: [line(3_000, 'scan finished', { status: 'succeeded' }), line(1_000, 'scan started')], nextToken: 'next' })
      .resolvesOnce({ events: [line(2_000, 'runner started', { runner: 'tlsscan' }), { timestamp: 2_500, message: 'not json' }] });

    const read = await logs.read('acme', SCAN, 1000);

    expect(read).toEqual({
      lines: [
        { timestamp: new Date(1_000).toISOString(), level: 'INFO', message: 'scan started', fields: {} },
        { timestamp: new Date(2_000).toISOString(), level: 'INFO', message: 'runner started', fields: { runner: 'tlsscan' } },
        { timestamp: new Date(3_000).toISOString(), level: 'INFO', message: 'scan finished', fields: { status: 'succeeded' } },
      ],
      truncated: false,
    });
    const calls = cloudwatch.commandCalls(FilterLogEventsCommand).map((call) => call.args[0].input);
    expect(calls).toEqual([
      {
        logGroupName: '/aws/lambda/dispatch',
        filterPattern: `{ ($.scan_id = "${SCAN}") && ($.tenant = "acme") }`,
        startTime: decodeTime(SCAN.slice(5)) - 60_000,
        nextToken: undefined,
        limit: 1001,
      },
      expect.objectContaining({ nextToken: 'next' }),
    ]);
  });

  it("drops another scan's line and a line without scan_id even if the filter let them through", async () => {
    const other = 'scan_01KB1V0T4K0000000000000001';
    cloudwatch.on(FilterLogEventsCommand).resolves({
      events: [
        line(1, 'ours'),
        line(2, 'another scan', { scan_id: other }),
        line(3, 'no scan', { scan_id: undefined }),
        line(4, 'ours too'),
      ],
    });

    const read = await logs.read('acme', SCAN, 10);

    expect(read?.lines.map((entry) => entry.message)).toEqual(['ours', 'ours too']);
  });

  it("drops another tenant's line even if the filter let it through, and cuts at maxLines", async () => {
    cloudwatch.on(FilterLogEventsCommand).resolves({
      events: [line(1, 'a'), line(2, 'theirs', { tenant: 'globex' }), line(3, 'b'), line(4, 'c')],
    });
    const read = await logs.read('acme', SCAN, 2);
    expect(read?.lines.map((entry) => entry.message)).toEqual(['a', 'b']);
    expect(read?.truncated).toBe(true);
  });
});
