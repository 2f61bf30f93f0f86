import { Aws, Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Every alarm here looks at one 5-minute period: one bad period is worth a look. */
const PERIOD = Duration.minutes(5);

/**
 * Operator alarms and the SNS topic they notify (subscribe to its `AlarmTopicArn` output).
 * The topic refuses publishes that are not over TLS (`enforceSSL`, cdk-nag SNS3). That adds a
 * topic policy, which replaces SNS's default one, so the policy also lets CloudWatch publish, but
 * only for alarms of this account. Not KMS-encrypted on purpose: CloudWatch cannot publish to a
 * topic under the AWS-managed SNS key, and alarms carry no secrets.
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  /** Every alarm made here, in order (the dashboard shows them all). */
  readonly all: Alarm[] = [];

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'Scan service alarms', enforceSSL: true });
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
        },
      }),
    );
  }

  /** Alarm when `queue` holds a visible message at any time in a 5-minute period. */
  whenMessagesWait(id: string, queue: IQueue, description: string): Alarm {
    return this.alarm(id, queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: Stats.MAXIMUM }), description);
  }

  /** Alarm when any message is received from `queue` in a 5-minute period. */
  whenMessagesReceived(id: string, queue: IQueue, description: string): Alarm {
    return this.alarm(id, queue.metricNumberOfMessagesReceived({ period: PERIOD, statistic: Stats.SUM }), description);
  }

  /**
   * Alarm when `metric` is at least `threshold` in `datapointsToAlarm` of the last
   * `evaluationPeriods` periods (default: one period). No data is not breaching: EMF metrics and
   * idle queues publish nothing when nothing happens.
   */
  whenAtLeast(
    id: string,
    metric: IMetric,
    threshold: number,
    description: string,
    periods: { evaluationPeriods: number; datapointsToAlarm: number } = { evaluationPeriods: 1, datapointsToAlarm: 1 },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      ...periods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.all.push(alarm);
    return alarm;
  }

  private alarm(id: string, metric: IMetric, description: string): Alarm {
    // SQS stops publishing metrics for a queue that has been idle for hours: an idle DLQ is fine.
    return this.whenAtLeast(id, metric, 1, description);
  }
}
