import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { AlarmStatusWidget, Dashboard, GraphWidget, Stats, TextWidget, type IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceMetrics } from './service-metrics.ts';

export interface ServiceDashboardProps {
  environmentName: string;
  scanQueue: IQueue;
  scanDeadLetterQueue: IQueue;
  schedulerDeadLetterQueue: IQueue;
  dispatchFunction: IFunction;
  /** The notification queue, its DLQ and their consumer (infra/constructs/notifications.ts). */
  notificationQueue: IQueue;
  notificationDeadLetterQueue: IQueue;
  notifierFunction: IFunction;
  httpApi: HttpApi;
  alarms: IAlarm[];
}

const FIVE_MINUTES = Duration.minutes(5);
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const FINISHED = ['succeeded', 'partial', 'failed'] as const;

/**
 * One CloudWatch dashboard per environment (`scan-service-<env>`): alarms first, then scans,
 * findings, the queues and dispatch, notifications, the API. Its metrics are the ones docs/operations.md
 * describes; each alarm there has a runbook line.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const metrics = new ServiceMetrics(props.environmentName);
    const { httpApi } = props;

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `scan-service-${props.environmentName}`,
      defaultInterval: Duration.hours(24),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Scan service (${props.environmentName})\nRunbook for every alarm: docs/operations.md in the repository.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 24, height: 3 }));
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Scans started (by scan type)',
        left: [metrics.search('ScansStarted', 'scan_type', 'Sum', '')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Scans finished (by status)',
        left: FINISHED.map((status) => metrics.metric('ScansFinished', { status }, { label: status })),
        stacked: true,
        width: 8,
      }),
      new GraphWidget({
        title: 'Failed scans (% of finished, 1 h)',
        left: [metrics.scanFailureRatio(Duration.hours(1), 5)],
        leftYAxis: { min: 0, max: 100 },
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Scan duration p50 / p90 (by scan type)',
        left: [metrics.search('ScanDuration', 'scan_type', 'p50', 'p50'), metrics.search('ScanDuration', 'scan_type', 'p90', 'p90')],
        width: 12,
      }),
      new GraphWidget({
        title: 'Findings stored (by severity)',
        left: SEVERITIES.map((severity) => metrics.metric('Findings', { severity }, { label: severity })),
        stacked: true,
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Scan queue: waiting and oldest age',
        left: [
          props.scanQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: Stats.MAXIMUM, label: 'waiting' }),
        ],
        right: [
          props.scanQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: Stats.MAXIMUM, label: 'oldest (s)' }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Dead-letter queues (depth)',
        left: [
          props.scanDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            statistic: Stats.MAXIMUM,
            label: 'scan DLQ',
          }),
          props.schedulerDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            statistic: Stats.MAXIMUM,
            label: 'scheduler DLQ',
          }),
          props.scanDeadLetterQueue.metricNumberOfMessagesReceived({
            period: FIVE_MINUTES,
            statistic: Stats.SUM,
            label: 'scan DLQ received',
          }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Dispatch: failures, errors, fires dropped',
        left: [
          metrics.metric('DispatchFailures', {}, { label: 'records failed' }),
          props.dispatchFunction.metricErrors({ period: FIVE_MINUTES, statistic: Stats.SUM, label: 'invocation errors' }),
          props.dispatchFunction.metricThrottles({ period: FIVE_MINUTES, statistic: Stats.SUM, label: 'throttles' }),
          metrics.metric('FiresDropped', {}, { label: 'fires dropped' }),
        ],
        width: 8,
      }),
    );
    const fiveMinuteMaximum = (label: string) => ({ period: FIVE_MINUTES, statistic: Stats.MAXIMUM, label });
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Notification queue: waiting and oldest age',
        left: [props.notificationQueue.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum('waiting'))],
        right: [props.notificationQueue.metricApproximateAgeOfOldestMessage(fiveMinuteMaximum('oldest (s)'))],
        width: 8,
      }),
      new GraphWidget({
        title: 'Notification DLQ (depth)',
        left: [props.notificationDeadLetterQueue.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum('notification DLQ'))],
        width: 8,
      }),
      new GraphWidget({
        title: 'Notifier: errors and throttles',
        left: [
          props.notifierFunction.metricErrors({ period: FIVE_MINUTES, statistic: Stats.SUM, label: 'notifier invocation errors' }),
          props.notifierFunction.metricThrottles({ period: FIVE_MINUTES, statistic: Stats.SUM, label: 'notifier throttles' }),
        ],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests and errors',
        left: [
          httpApi.metricCount({ period: FIVE_MINUTES, statistic: Stats.SUM, label: 'requests' }),
          httpApi.metricClientError({ period: FIVE_MINUTES, statistic: Stats.SUM, label: '4xx' }),
          httpApi.metricServerError({ period: FIVE_MINUTES, statistic: Stats.SUM, label: '5xx' }),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'API latency p50 / p90 (ms)',
        left: [
          httpApi.metricLatency({ period: FIVE_MINUTES, statistic: Stats.percentile(50), label: 'p50' }),
          httpApi.metricLatency({ period: FIVE_MINUTES, statistic: Stats.percentile(90), label: 'p90' }),
        ],
        width: 12,
      }),
    );
  }
}
