import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_TIMEOUT } from '../../infra/constructs/dispatch.ts';
import {
  arnOf,
  cdkContext,
  environments,
  logicalId,
  schedulerArn,
  statementsOfRole,
  synthesizedStack,
  type Json,
} from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const group = settings.scheduleGroupName;
  const { stack, template } = synthesizedStack(env);

  describe('adversary engine', () => {
    it('grants the context-named role sqs:SendMessage on the scan queue only, or nothing when none is named', () => {
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy: Json) =>
        JSON.stringify(policy.Properties.Roles ?? []).includes('"adversary-engine'),
      );
      if (settings.adversaryEngineRoleName === null) {
        expect(policies).toEqual([]);
        return;
      }
      expect(policies).toHaveLength(1);
      expect(policies[0].Properties.Roles).toEqual([settings.adversaryEngineRoleName]);
      expect(policies[0].Properties.PolicyDocument.Statement).toEqual([
        { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: arnOf(stack, stack.scheduling.scanQueue) },
      ]);
    });
  });

  describe('scheduling', () => {
    it('creates the environment schedule group', () => {
      template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
      template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: group });
    });

    it('redrives the scan queue to its DLQ after maxReceiveCount receives', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        VisibilityTimeout: settings.scanQueue.visibilityTimeoutSeconds,
        MessageRetentionPeriod: settings.scanQueue.retentionDays * 86_400,
        RedrivePolicy: {
          deadLetterTargetArn: arnOf(stack, stack.scheduling.scanDeadLetterQueue),
          maxReceiveCount: settings.scanQueue.maxReceiveCount,
        },
      });
    });

    it('keeps each consumed queue invisible for at least 6x its consumer timeout', () => {
      const resources = template.toJSON().Resources;
      const pairs = [
        { queue: stack.scheduling.scanQueue, consumer: stack.functions.dispatch },
        { queue: stack.scheduling.scanDeadLetterQueue, consumer: stack.functions.dispatchDeadLetter },
        // The long resource class's queue and DLQ (docs/resource-classes.md).
        { queue: stack.scheduling.classQueues.get('long')!.queue, consumer: stack.functions.longDispatch! },
        { queue: stack.scheduling.classQueues.get('long')!.deadLetterQueue, consumer: stack.functions.dispatchDeadLetter },
      ];
      for (const { queue, consumer } of pairs) {
        const visibility = resources[logicalId(stack, queue)].Properties.VisibilityTimeout;
        const timeout = resources[logicalId(stack, consumer.handler)].Properties.Timeout;
        expect(visibility, queue.node.path).toBeGreaterThanOrEqual(6 * timeout);
      }
      expect(resources[logicalId(stack, stack.scheduling.scanQueue)].Properties.VisibilityTimeout).toBe(
        settings.scanQueue.visibilityTimeoutSeconds,
      );
      expect(resources[logicalId(stack, stack.scheduling.scanDeadLetterQueue)].Properties.VisibilityTimeout).toBe(
        6 * DEAD_LETTER_TIMEOUT.toSeconds(),
      );
    });

    it('encrypts every queue with SQS-managed keys and denies plain HTTP', () => {
      const queues = template.findResources('AWS::SQS::Queue');
      // Each resource class's scan queue and its DLQ (standard, long), the scheduler DLQ; the
      // notification queue and its DLQ.
      expect(Object.keys(queues)).toHaveLength(7);
      for (const [id, queue] of Object.entries<Json>(queues)) {
        expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
          },
        });
      }
    });

    it('lets only EventBridge Scheduler acting for this group assume the execution role', () => {
      const role = template.toJSON().Resources[logicalId(stack, stack.scheduling.executionRole)];
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: { 'aws:SourceArn': [schedulerArn(`schedule-group/${group}`), schedulerArn(`schedule/${group}/*`)] },
          },
        },
      ]);
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    });

    it("allows the execution role only sqs:SendMessage to each class's scan queue and the scheduler DLQ", () => {
      expect(statementsOfRole(template, logicalId(stack, stack.scheduling.executionRole))).toEqual([
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage'],
          Resource: [
            arnOf(stack, stack.scheduling.scanQueue),
            arnOf(stack, stack.scheduling.classQueues.get('long')!.queue),
            arnOf(stack, stack.scheduling.schedulerDeadLetterQueue),
          ],
        },
      ]);
    });
  });
});
