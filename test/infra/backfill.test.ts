import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import {
  arnOf,
  backfillSettings,
  cdkContext,
  logicalId,
  schedulerArn,
  statementsOfRole,
  synthesizedStack,
  synthesizedStackWithBackfill,
  type Json,
} from './synthesized-stack.ts';

describe('the backfill function', () => {
  let stack: ScanServiceStack;
  let template: Template;
  beforeAll(() => {
    // dev with a backfill block, shared with the table-grant test.
    ({ stack, template } = synthesizedStackWithBackfill());
  });

  function fnResource(): Json {
    return template.toJSON().Resources[logicalId(stack, stack.backfill!.fn.handler)];
  }

  it('grants exactly its table items, the group schedules, PassRole to the scheduler, that one secret, and the VPC ENI actions', () => {
    // act
    const statements = statementsOfRole(template, logicalId(stack, stack.backfill!.fn.role));

    // assert
    expect(statements).toEqual([
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: [arnOf(stack, stack.backfill!.fn.logGroup)] },
      {
        Effect: 'Allow',
        Action: ['secretsmanager:GetSecretValue'],
        Resource: [
          {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':secretsmanager:',
                { Ref: 'AWS::Region' },
                ':',
                { Ref: 'AWS::AccountId' },
                ':secret:legacy/django-db-??????',
              ],
            ],
          },
        ],
      },
      {
        Effect: 'Allow',
        Action: [
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        Resource: ['*'],
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: [arnOf(stack, stack.storage.table)],
      },
      {
        Effect: 'Allow',
        Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
        Resource: [schedulerArn(`schedule/${cdkContext.environments.dev.scheduleGroupName}/*`)],
      },
      {
        Effect: 'Allow',
        Action: ['iam:PassRole'],
        Resource: [arnOf(stack, stack.scheduling.executionRole)],
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ]);
    expect(template.toJSON().Resources[logicalId(stack, stack.backfill!.fn.role)].Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('runs 15 minutes in the configured subnets and security group, with the secret named in its environment', () => {
    // act
    const props = fnResource().Properties;

    // assert
    expect(props.Timeout).toBe(900);
    expect(props.VpcConfig).toEqual({ SubnetIds: backfillSettings.subnetIds, SecurityGroupIds: [backfillSettings.securityGroupId] });
    expect(props.Environment.Variables).toMatchObject({
      LEGACY_DATABASE_SECRET_NAME: 'legacy/django-db',
      TABLE_NAME: { Ref: logicalId(stack, stack.storage.table) },
      SCHEDULE_GROUP_NAME: expect.anything(),
      SCHEDULE_QUOTA: String(cdkContext.environments.dev.scheduleQuota),
      ALLOW_PRIVATE_TARGETS: String(cdkContext.environments.dev.allowPrivateTargets),
    });
  });

  it('has no schedule, event source or invoke permission of its own', () => {
    // prepare
    const fnId = logicalId(stack, stack.backfill!.fn.handler);
    const mentions = (type: string) =>
      Object.values<Json>(template.findResources(type)).filter((resource) => JSON.stringify(resource).includes(`"${fnId}"`));

    // act / assert
    expect(mentions('AWS::Events::Rule')).toEqual([]);
    expect(mentions('AWS::Lambda::EventSourceMapping')).toEqual([]);
    expect(mentions('AWS::Lambda::Permission')).toEqual([]);
    expect(mentions('AWS::Scheduler::Schedule')).toEqual([]);
  });

  it('is not created when cdk.json has no backfill block', () => {
    // act
    const { stack: plain } = synthesizedStack('dev');

    // assert
    expect(plain.backfill).toBeUndefined();
  });
});
