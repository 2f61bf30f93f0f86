import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.ts';
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
      expectQueueAlarm(
        'SchedulerDeadLettersWaiting',
        stack.scheduling.schedulerDeadLetterQueue,
        'ApproximateNumberOfMessagesVisible',
        'Maximum',
      );
    });

    it('alarms when a message waits in the scan DLQ (its handler is not draining it)', () => {
      expectQueueAlarm('ScanDeadLettersWaiting', stack.scheduling.scanDeadLetterQueue, 'ApproximateNumberOfMessagesVisible', 'Maximum');
    });

    it('alarms when the dead-letter function receives a scan dead letter', () => {
      expectQueueAlarm('ScanDeadLettersReceived', stack.scheduling.scanDeadLetterQueue, 'NumberOfMessagesReceived', 'Sum');
    });

    /** The alarm's metric queries by id, for metric-math alarms. */
    function queriesOf(id: string): Record<string, Json> {
      return Object.fromEntries((alarmOf(stack.alarms.node.findChild(id)).Metrics as Json[]).map((query) => [query.Id, query]));
    }

    const serviceDimensions = (extra: Record<string, string> = {}) =>
      Object.entries({ environment: env, service: 'scan-service', ...extra })
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([Name, Value]) => ({ Name, Value }));

    function sortedDimensions(query: Json): Json[] {
      return [...query.MetricStat.Metric.Dimensions].sort((a: Json, b: Json) => a.Name.localeCompare(b.Name));
    }

    it('alarms when dispatch fails records or crashes in 2 of 3 five-minute periods', () => {
      const queries = queriesOf('DispatchErrors');

      expect(alarmOf(stack.alarms.node.findChild('DispatchErrors'))).toMatchObject({
        Threshold: 1,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [ref(stack, stack.alarms.topic)],
      });
      // One errors metric per resource class's dispatch function (docs/resource-classes.md).
      expect(Object.values(queries).find((query) => query.ReturnData !== false)?.Expression).toBe(
        'FILL(failures, 0) + FILL(errors0, 0) + FILL(errors1, 0)',
      );
      expect(queries.failures.MetricStat).toMatchObject({
        Metric: { Namespace: 'ScanService', MetricName: 'DispatchFailures' },
        Period: 300,
        Stat: 'Sum',
      });
      expect(sortedDimensions(queries.failures)).toEqual(serviceDimensions());
      for (const [query, fn] of [
        [queries.errors0, stack.functions.dispatch],
        [queries.errors1, stack.functions.longDispatch!],
      ] as const) {
        expect(query.MetricStat).toMatchObject({
          Metric: {
            Namespace: 'AWS/Lambda',
            MetricName: 'Errors',
            Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(stack, fn.handler) } }],
          },
          Stat: 'Sum',
        });
      }
    });

    it('alarms when half the scans of an hour failed, once at least 5 finished', () => {
      const queries = queriesOf('ScanFailureRatio');
      const finished = Object.values(queries).filter((query) => query.MetricStat?.Metric.MetricName === 'ScansFinished');

      expect(alarmOf(stack.alarms.node.findChild('ScanFailureRatio'))).toMatchObject({
        Threshold: 50,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(Object.values(queries).find((query) => query.ReturnData !== false)?.Expression).toBe(
        'IF(total >= 5, 100 * failed / total, 0)',
      );
      expect(finished.map((query) => sortedDimensions(query))).toEqual(
        expect.arrayContaining(['succeeded', 'partial', 'failed'].map((status) => serviceDimensions({ status }))),
      );
      expect(finished.every((query) => query.MetricStat.Period === 3600 && query.MetricStat.Stat === 'Sum')).toBe(true);
    });

    it('alarms on 5 or more API 5xx answers in five minutes', () => {
      expect(alarmOf(stack.alarms.node.findChild('Api5xx'))).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5xx',
        Dimensions: [{ Name: 'ApiId', Value: { Ref: logicalId(stack, stack.api.httpApi) } }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 5,
        AlarmActions: [ref(stack, stack.alarms.topic)],
      });
    });

    it('has exactly these nine alarms, all notifying the alarm topic, each pointing at its runbook line', () => {
      const runbook = readFileSync(join(repositoryRoot, 'docs/operations.md'), 'utf8');
      template.resourceCountIs('AWS::CloudWatch::Alarm', 9);
      template.resourceCountIs('AWS::SNS::Topic', 1);
      const ids = stack.alarms.all.map((alarm) => alarm.node.id);

      expect(ids.sort()).toEqual([
        'Api5xx',
        'DispatchErrors',
        // The long resource class's scan DLQ (docs/resource-classes.md).
        'LongScanDeadLettersReceived',
        'LongScanDeadLettersWaiting',
        'NotificationDeadLettersWaiting',
        'ScanDeadLettersReceived',
        'ScanDeadLettersWaiting',
        'ScanFailureRatio',
        'SchedulerDeadLettersWaiting',
      ]);
      for (const id of ids) {
        expect(alarmOf(stack.alarms.node.findChild(id)).AlarmActions).toEqual([ref(stack, stack.alarms.topic)]);
        expect(alarmOf(stack.alarms.node.findChild(id)).AlarmDescription).toContain(`docs/operations.md, "${id}"`);
        expect(runbook).toContain(`### ${id}`);
      }
    });

    it('builds the environment dashboard from the same metrics, with every alarm on it', () => {
      const dashboards = Object.values<Json>(template.findResources('AWS::CloudWatch::Dashboard'));
      const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);

      expect(dashboards).toHaveLength(1);
      expect(dashboards[0].Properties.DashboardName).toBe(`scan-service-${env}`);
      for (const name of [
        'ScansStarted',
        'ScansFinished',
        'ScanDuration',
        'Findings',
        'FiresDropped',
        'DispatchFailures',
        'ApproximateNumberOfMessagesVisible',
        'notification DLQ',
        'notifier invocation errors',
        '5xx',
      ]) {
        expect(body, name).toContain(name);
      }
      for (const alarm of stack.alarms.all) expect(body).toContain(logicalId(stack, alarm));
    });

    it('refuses publishes to the alarm topic without TLS and lets CloudWatch alarms of this account publish', () => {
      const topic = ref(stack, stack.alarms.topic);
      template.resourceCountIs('AWS::SNS::TopicPolicy', 1);
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [topic],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Principal: '*',
              Action: 'sns:Publish',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            {
              Sid: 'CloudWatchAlarmsPublish',
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Resource: topic,
              Condition: {
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
                ArnLike: {
                  'aws:SourceArn': {
                    'Fn::Join': [
                      '',
                      [
                        'arn:',
                        { Ref: 'AWS::Partition' },
                        ':cloudwatch:',
                        { Ref: 'AWS::Region' },
                        ':',
                        { Ref: 'AWS::AccountId' },
                        ':alarm:*',
                      ],
                    ],
                  },
                },
              },
            },
          ]),
        },
      });
    });
  });
});
