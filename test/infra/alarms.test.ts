import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { environments, logicalId, ref, synthesizedStack, type Json } from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const { stack, template } = synthesizedStack(env);

  describe('alarms', () => {
    function alarmOf(construct: IConstruct): Json {
      return template.toJSON().Resources[logicalId(stack, construct)].Properties;
    }

    function expectQueueAlarm(id: string, queue: IConstruct, metricName: string, statistic: string): void {
      const alarm = stack.alarms.node.findChild(id);
      expect(alarmOf(alarm)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: metricName,
        Statistic: statistic,
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, queue), 'QueueName'] } }],
        Period: 300,
        EvaluationPeriods: 1,
        DatapointsToAlarm: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [ref(stack, stack.alarms.topic)],
      });
    }

    it('alarms when a message waits in the scheduler DLQ (an undelivered fire)', () => {
      expectQueueAlarm('SchedulerDeadLettersWaiting', stack.scheduling.schedulerDeadLetterQueue, 'ApproximateNumberOfMessagesVisible', 'Maximum');
    });

    it('alarms when a message waits in the scan DLQ (its handler is not draining it)', () => {
      expectQueueAlarm('ScanDeadLettersWaiting', stack.scheduling.scanDeadLetterQueue, 'ApproximateNumberOfMessagesVisible', 'Maximum');
    });

    it('alarms when the dead-letter function receives a scan dead letter', () => {
      expectQueueAlarm('ScanDeadLettersReceived', stack.scheduling.scanDeadLetterQueue, 'NumberOfMessagesReceived', 'Sum');
    });

    it('has exactly these three alarms, all notifying the alarm topic', () => {
      template.resourceCountIs('AWS::CloudWatch::Alarm', 3);
      template.resourceCountIs('AWS::SNS::Topic', 1);
      // SNS's default topic policy is what lets CloudWatch publish; a policy of our own would replace it.
      template.resourceCountIs('AWS::SNS::TopicPolicy', 0);
    });
  });
});
