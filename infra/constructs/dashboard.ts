import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { acceptCfnLintFinding } from './cfn-lint.ts';
import { AlarmStatusWidget, Dashboard, GraphWidget, Stats, TextWidget, type IAlarm, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SEVERITIES } from '../../lib/severity.ts';
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
const FINISHED = ['succeeded', 'partial', 'failed'] as const;

/** A labelled metric over five minutes: the period of every queue, function and API graph here. */
const fiveMinuteMaximum = (label: string): MetricOptions => ({ period: FIVE_MINUTES, statistic: Stats.MAXIMUM, label });
const fiveMinuteSum = (label: string): MetricOptions => ({ period: FIVE_MINUTES, statistic: Stats.SUM, label });

/** A queue's backlog: the messages waiting (left) and the oldest one's age (right). */
function queueBacklogWidget(title: string, queue: IQueue): GraphWidget {
  return new GraphWidget({
    title,
    left: [queue.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum('waiting'))],
    right: [queue.metricApproximateAgeOfOldestMessage(fiveMinuteMaximum('oldest (s)'))],
    width: 8,
  });
}

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
    acceptCfnLintFinding(
      this.dashboard,
      'E3002',
      "The stack's tags reach the dashboard as Tags, which CloudFormation accepts on AWS::CloudWatch::Dashboard " +
        '(the CDK types are generated from its registry schema); the schema bundled with cfn-lint 1.51 predates them.',
    );
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
      queueBacklogWidget('Scan queue: waiting and oldest age', props.scanQueue),
      new GraphWidget({
        title: 'Dead-letter queues (depth)',
        left: [
          props.scanDeadLetterQueue.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum('scan DLQ')),
          props.schedulerDeadLetterQueue.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum('scheduler DLQ')),
          props.scanDeadLetterQueue.metricNumberOfMessagesReceived(fiveMinuteSum('scan DLQ received')),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Dispatch: failures, errors, fires dropped',
        left: [
          metrics.metric('DispatchFailures', {}, { label: 'records failed' }),
          props.dispatchFunction.metricErrors(fiveMinuteSum('invocation errors')),
          props.dispatchFunction.metricThrottles(fiveMinuteSum('throttles')),
          metrics.metric('FiresDropped', {}, { label: 'fires dropped' }),
        ],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      queueBacklogWidget('Notification queue: waiting and oldest age', props.notificationQueue),
      new GraphWidget({
        title: 'Notification DLQ (depth)',
        left: [props.notificationDeadLetterQueue.metricApproximateNumberOfMessagesVisible(fiveMinuteMaximum('notification DLQ'))],
        width: 8,
      }),
      new GraphWidget({
        title: 'Notifier: errors and throttles',
        left: [
          props.notifierFunction.metricErrors(fiveMinuteSum('notifier invocation errors')),
          props.notifierFunction.metricThrottles(fiveMinuteSum('notifier throttles')),
        ],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests and errors',
        left: [
          httpApi.metricCount(fiveMinuteSum('requests')),
          httpApi.metricClientError(fiveMinuteSum('4xx')),
          httpApi.metricServerError(fiveMinuteSum('5xx')),
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
