import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Every alarm here looks at one 5-minute period: one bad period is worth a look. */
const PERIOD = Duration.minutes(5);

/**
 * Operator alarms and the SNS topic they notify (subscribe to its `AlarmTopicArn` output).
 * The topic keeps SNS's default access policy and is not KMS-encrypted on purpose: a topic policy
 * of our own replaces the default one that lets CloudWatch publish for this account, and
 * CloudWatch cannot publish to a topic under the AWS-managed SNS key. Alarms carry no secrets.
 */
export class Alarms extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'Scan service alarms' });
  }

  /** Alarm when `queue` holds a visible message at any time in a 5-minute period. */
  whenMessagesWait(id: string, queue: IQueue, description: string): Alarm {
    return this.alarm(id, queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: Stats.MAXIMUM }), description);
  }

  /** Alarm when any message is received from `queue` in a 5-minute period. */
  whenMessagesReceived(id: string, queue: IQueue, description: string): Alarm {
    return this.alarm(id, queue.metricNumberOfMessagesReceived({ period: PERIOD, statistic: Stats.SUM }), description);
  }

  private alarm(id: string, metric: IMetric, description: string): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      // SQS stops publishing metrics for a queue that has been idle for hours: an idle DLQ is fine.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    return alarm;
  }
}
