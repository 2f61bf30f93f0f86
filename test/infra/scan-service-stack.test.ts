import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { arnOf, cdkContext, environments, ref, synthesizedStack } from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const group = settings.scheduleGroupName;
  const { stack, template } = synthesizedStack(env);

  describe('functions', () => {
    it('runs reconcile nightly from an EventBridge rule', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: settings.reconcileCron,
        Targets: [Match.objectLike({ Arn: arnOf(stack, stack.functions.reconcile.handler) })],
      });
    });
  });

  it('outputs the API URL, table, queues, group name, function names and alarm topic', () => {
    const outputs = Object.keys(template.toJSON().Outputs);
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'TableName',
        'ScheduleGroupName',
        'ScanQueueUrl',
        'ScanDeadLetterQueueUrl',
        'SchedulerDeadLetterQueueUrl',
        'ScansFunctionName',
        'DispatchFunctionName',
        'DispatchLogGroupName',
        'DispatchDeadLetterFunctionName',
        'AlarmTopicArn',
      ]),
    );
    template.hasOutput('ScheduleGroupName', { Value: group });
    template.hasOutput('ScansFunctionName', { Value: ref(stack, stack.functions.scans.handler) });
    template.hasOutput('DispatchFunctionName', { Value: ref(stack, stack.functions.dispatch.handler) });
  });
});
