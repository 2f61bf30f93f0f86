import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import {
  allStatements,
  arnOf,
  cdkContext,
  environments,
  functionResource,
  logicalId,
  ref,
  schedulerArn,
  statementsOfRole,
  synthesizedStack,
  type FunctionName,
  type Json,
  type Statement,
} from './synthesized-stack.ts';

function logStatement(stack: ScanServiceStack, fn: FunctionName): Statement {
  return {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: [arnOf(stack, stack.functions[fn]!.logGroup)],
  };
}

/** Exactly `actions` on the table itself; no index unless a Query statement says so. */
function tableItemStatement(stack: ScanServiceStack, actions: string[]): Statement {
  return { Effect: 'Allow', Action: actions, Resource: [arnOf(stack, stack.storage.table)] };
}

/** Query on the indexes, each named (no `index/*`), granted beside a table statement that lists Query. */
function indexQueryStatement(stack: ScanServiceStack, indexes = ['GSI1', 'GSI2']): Statement {
  return {
    Effect: 'Allow',
    Action: ['dynamodb:Query'],
    Resource: indexes.map((index) => ({ 'Fn::Join': ['', [arnOf(stack, stack.storage.table), `/index/${index}`]] })),
  };
}

/** What an SQS event source grants its function on the queue it polls (Queue.grantConsumeMessages). */
function consumeStatement(stack: ScanServiceStack, queue: IConstruct): Statement {
  return {
    Effect: 'Allow',
    Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    Resource: [arnOf(stack, queue)],
  };
}

/** `actions` on the artifact objects (`<bucket arn>/*`), never the bucket itself. */
function artifactObjectStatement(stack: ScanServiceStack, actions: string[]): Statement {
  return { Effect: 'Allow', Action: actions, Resource: [stack.resolve(stack.artifacts.objectsArn)] };
}

/** The vault key's one action, with the context condition of infra/constructs/credential-key.ts. */
function credentialKeyStatement(stack: ScanServiceStack, action: string): Statement {
  return {
    Effect: 'Allow',
    Action: [action],
    Resource: [arnOf(stack, stack.credentialKey.key)],
    Condition: {
      Null: { 'kms:EncryptionContext:tenant': 'false', 'kms:EncryptionContext:alias': 'false' },
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['tenant', 'alias'] },
    },
  };
}

function triggerStatements(stack: ScanServiceStack, group: string): Statement[] {
  return [
    {
      Effect: 'Allow',
      Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
      Resource: [schedulerArn(`schedule/${group}/*`)],
    },
    {
      Effect: 'Allow',
      Action: ['iam:PassRole'],
      Resource: [arnOf(stack, stack.scheduling.executionRole)],
      Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    },
  ];
}

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const group = settings.scheduleGroupName;
  const { stack, template } = synthesizedStack(env);

  describe('function permissions', () => {
    it('gives the schedules function table items, the group schedules, PassRole to the scheduler only, and email as the sender', () => {
      expect(statementsOfRole(template, logicalId(stack, stack.functions.schedules.role))).toEqual([
        logStatement(stack, 'schedules'),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
        indexQueryStatement(stack),
        ...triggerStatements(stack, group),
        credentialKeyStatement(stack, 'kms:Encrypt'),
        { Effect: 'Allow', Action: ['ses:SendEmail'], Resource: [stack.resolve(stack.notifications.senderIdentityArn)] },
      ]);
    });

    it('gives reconcile Query, Scan and the run-field update, the group schedules, and ListSchedules', () => {
      expect(statementsOfRole(template, logicalId(stack, stack.functions.reconcile.role))).toEqual([
        logStatement(stack, 'reconcile'),
        tableItemStatement(stack, ['dynamodb:Query', 'dynamodb:Scan', 'dynamodb:UpdateItem']),
        indexQueryStatement(stack, ['GSI2']),
        ...triggerStatements(stack, group),
        { Effect: 'Allow', Action: ['scheduler:ListSchedules'], Resource: ['*'] },
      ]);
    });

    it("gives the scans function its table reads and writes, Query on the indexes, and SendMessage to each class's scan queue", () => {
      const long = stack.scheduling.classQueues.get('long')!.queue;
      expect(statementsOfRole(template, logicalId(stack, stack.functions.scans.role))).toEqual([
        logStatement(stack, 'scans'),
        tableItemStatement(stack, [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
        ]),
        indexQueryStatement(stack, ['GSI1', 'GSI2', 'GSI3']),
        { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [arnOf(stack, stack.scheduling.scanQueue)] },
        // A manual scan of a long type goes to the long class's queue (docs/resource-classes.md).
        { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [arnOf(stack, long)] },
        artifactObjectStatement(stack, ['s3:PutObject', 's3:GetObject']),
        {
          Effect: 'Allow',
          Action: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject'],
          Resource: [stack.resolve(stack.artifacts.exportsArn)],
        },
        { Effect: 'Allow', Action: ['logs:FilterLogEvents'], Resource: [arnOf(stack, stack.dispatch.dispatchFunction.logGroup)] },
        { Effect: 'Allow', Action: ['logs:FilterLogEvents'], Resource: [arnOf(stack, stack.functions.longDispatch!.logGroup)] },
      ]);
    });

    it.each([
      ['dispatch', 'standard'],
      ['longDispatch', 'long'],
    ] as const)(
      'lets the %s function consume its own class queue (%s), read and write items, read the operator keys and put events, nothing else',
      (fn, resourceClass) => {
        expect(statementsOfRole(template, logicalId(stack, stack.functions[fn]!.role))).toEqual([
          logStatement(stack, fn),
          consumeStatement(stack, stack.scheduling.classQueues.get(resourceClass)!.queue),
          tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem']),
          indexQueryStatement(stack, ['GSI2', 'GSI3']),
          { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [ref(stack, stack.operatorKeys.secret)] },
          credentialKeyStatement(stack, 'kms:Decrypt'),
          artifactObjectStatement(stack, ['s3:GetObject', 's3:PutObject']),
          { Effect: 'Allow', Action: ['events:PutEvents'], Resource: [arnOf(stack, stack.notifications.bus)] },
        ]);
      },
    );

    it('lets only the schedules function Encrypt and only dispatch Decrypt with the vault key, and the key rotates', () => {
      const key = JSON.stringify(arnOf(stack, stack.credentialKey.key));
      const onKey = allStatements(template)
        .filter(({ statement }) => statement.Resource.some((resource) => JSON.stringify(resource) === key))
        .map(({ owner, statement }) => [owner, statement.Action]);
      expect(onKey).toEqual(
        expect.arrayContaining([
          [logicalId(stack, stack.functions.schedules.role), ['kms:Encrypt']],
          [logicalId(stack, stack.functions.dispatch.role), ['kms:Decrypt']],
          [logicalId(stack, stack.functions.longDispatch!.role), ['kms:Decrypt']],
        ]),
      );
      expect(onKey).toHaveLength(3);
      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true, PendingWindowInDays: 30 });
      expect(functionResource(env, 'schedules').Properties.Environment.Variables.CREDENTIAL_KEY_ARN).toEqual(
        arnOf(stack, stack.credentialKey.key),
      );
      expect(functionResource(env, 'dispatch').Properties.Environment.Variables.CREDENTIAL_KEY_ARN).toEqual(
        arnOf(stack, stack.credentialKey.key),
      );
      expect(functionResource(env, 'scans').Properties.Environment.Variables.CREDENTIAL_KEY_ARN).toBeUndefined();
    });

    it('lets the artifact check read and delete artifact objects and settle their rows, nothing else', () => {
      expect(statementsOfRole(template, logicalId(stack, stack.functions.artifactCheck.role))).toEqual([
        logStatement(stack, 'artifactCheck'),
        artifactObjectStatement(stack, ['s3:GetObject', 's3:DeleteObject']),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:UpdateItem']),
      ]);
    });

    it('lets only the scans function (uploads) and dispatch (scan outputs) write artifact objects, and them and the check read them', () => {
      const byAction = (action: string, resource: string) =>
        allStatements(template)
          .filter(
            ({ statement }) =>
              statement.Effect === 'Allow' && statement.Action.includes(action) && JSON.stringify(statement.Resource) === resource,
          )
          .map(({ owner }) => owner)
          .sort();
      const artifacts = JSON.stringify([stack.resolve(stack.artifacts.objectsArn)]);
      const dispatchers = [stack.functions.dispatch, stack.functions.longDispatch!].map((fn) => logicalId(stack, fn.role));
      expect(byAction('s3:PutObject', artifacts)).toEqual([logicalId(stack, stack.functions.scans.role), ...dispatchers].sort());
      expect(byAction('s3:GetObject', artifacts)).toEqual(
        [logicalId(stack, stack.functions.scans.role), ...dispatchers, logicalId(stack, stack.functions.artifactCheck.role)].sort(),
      );
      // Every grant on the bucket names its objects or the exports under them, never the bucket or a wider pattern.
      const onBucket = allStatements(template).filter(({ statement }) => JSON.stringify(statement.Resource).includes('-artifacts-'));
      const exportsArn = JSON.stringify([stack.resolve(stack.artifacts.exportsArn)]);
      expect(
        onBucket.map(({ statement }) => JSON.stringify(statement.Resource)).filter((r) => r !== artifacts && r !== exportsArn),
      ).toEqual([]);
    });

    it('lets only the scans function write, abort and read exports, under _exports/ only', () => {
      const onExports = allStatements(template).filter(({ statement }) => JSON.stringify(statement.Resource).includes('/_exports/'));
      expect(onExports.map(({ owner, statement }) => [owner, statement.Action])).toEqual([
        [logicalId(stack, stack.functions.scans.role), ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject']],
      ]);
      expect(JSON.stringify(stack.resolve(stack.artifacts.exportsArn))).toMatch(/-artifacts-.*\/_exports\/\*"/);
    });

    it("lets the dead-letter function consume every class's scan DLQ and read and write items, nothing else", () => {
      expect(statementsOfRole(template, logicalId(stack, stack.functions.dispatchDeadLetter.role))).toEqual([
        logStatement(stack, 'dispatchDeadLetter'),
        consumeStatement(stack, stack.scheduling.scanDeadLetterQueue),
        consumeStatement(stack, stack.scheduling.classQueues.get('long')!.deadLetterQueue),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
      ]);
    });

    it('lets only the scheduler execution role, the scans function and the named adversary engine role send to the scan queue', () => {
      const scanQueue = JSON.stringify(arnOf(stack, stack.scheduling.scanQueue));
      const senders = allStatements(template)
        .filter(
          ({ statement }) =>
            statement.Effect === 'Allow' &&
            statement.Action.includes('sqs:SendMessage') &&
            statement.Resource.some((resource) => JSON.stringify(resource) === scanQueue),
        )
        .map(({ owner }) => owner);
      const adversaryEngine: string | null = cdkContext.environments[env].adversaryEngineRoleName;
      expect(senders.sort()).toEqual(
        [
          logicalId(stack, stack.scheduling.executionRole),
          logicalId(stack, stack.functions.scans.role),
          ...(adversaryEngine ? [adversaryEngine] : []),
        ].sort(),
      );
    });

    it("lets only the scheduler execution role and the scans function send to the long class's queue", () => {
      const longQueue = JSON.stringify(arnOf(stack, stack.scheduling.classQueues.get('long')!.queue));
      const senders = allStatements(template)
        .filter(
          ({ statement }) =>
            statement.Effect === 'Allow' &&
            statement.Action.includes('sqs:SendMessage') &&
            statement.Resource.some((resource) => JSON.stringify(resource) === longQueue),
        )
        .map(({ owner }) => owner);
      // No adversary engine: its steps are mailscan's, a standard engine.
      expect(senders.sort()).toEqual(
        [logicalId(stack, stack.scheduling.executionRole), logicalId(stack, stack.functions.scans.role)].sort(),
      );
    });

    it('lets only the queue consumers receive from a queue, each from its own', () => {
      const receivers = allStatements(template)
        .filter(({ statement }) => statement.Effect === 'Allow' && statement.Action.includes('sqs:ReceiveMessage'))
        .map(({ owner, statement }) => ({ owner, queues: statement.Resource }));
      expect(receivers).toEqual([
        { owner: logicalId(stack, stack.functions.dispatch.role), queues: [arnOf(stack, stack.scheduling.scanQueue)] },
        // The long class's dispatch function reads its own queue, never the standard one.
        {
          owner: logicalId(stack, stack.functions.longDispatch!.role),
          queues: [arnOf(stack, stack.scheduling.classQueues.get('long')!.queue)],
        },
        { owner: logicalId(stack, stack.functions.dispatchDeadLetter.role), queues: [arnOf(stack, stack.scheduling.scanDeadLetterQueue)] },
        {
          owner: logicalId(stack, stack.functions.dispatchDeadLetter.role),
          queues: [arnOf(stack, stack.scheduling.classQueues.get('long')!.deadLetterQueue)],
        },
        { owner: logicalId(stack, stack.functions.notifier.role), queues: [arnOf(stack, stack.notifications.queue)] },
      ]);
    });

    it('gives the meta function nothing beyond its own log group', () => {
      expect(statementsOfRole(template, logicalId(stack, stack.functions.meta.role))).toEqual([logStatement(stack, 'meta')]);
    });

    it('lets only the authorizer read the session key, and only its rotation function change it', () => {
      const rotation = stack.sessionKey.rotationFunction;
      expect(statementsOfRole(template, logicalId(stack, stack.functions.authorizer.role))).toEqual([
        logStatement(stack, 'authorizer'),
        { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [ref(stack, stack.sessionKey.secret)] },
      ]);
      expect(statementsOfRole(template, logicalId(stack, rotation.role))).toEqual([
        { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: [arnOf(stack, rotation.logGroup)] },
        {
          Effect: 'Allow',
          Action: [
            'secretsmanager:DescribeSecret',
            'secretsmanager:GetSecretValue',
            'secretsmanager:PutSecretValue',
            'secretsmanager:UpdateSecretVersionStage',
          ],
          Resource: [ref(stack, stack.sessionKey.secret)],
        },
      ]);
      const owners = allStatements(template)
        .filter(
          ({ statement }) =>
            statement.Action.some((a) => a.startsWith('secretsmanager:')) &&
            JSON.stringify(statement.Resource).includes(logicalId(stack, stack.sessionKey.secret)),
        )
        .map(({ owner }) => owner);
      expect(owners.sort()).toEqual([logicalId(stack, stack.functions.authorizer.role), logicalId(stack, rotation.role)].sort());
    });

    it(`rotates the session key every ${settings.sessionKeyRotationDays} days with its own function, invoked only for that secret`, () => {
      const rotation = stack.sessionKey.rotationFunction;
      template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
        SecretId: ref(stack, stack.sessionKey.secret),
        RotationLambdaARN: arnOf(stack, rotation.handler),
        RotationRules: { ScheduleExpression: `rate(${settings.sessionKeyRotationDays} days)` },
        RotateImmediatelyOnUpdate: false,
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        FunctionName: arnOf(stack, rotation.handler),
        Principal: 'secretsmanager.amazonaws.com',
        SourceArn: ref(stack, stack.sessionKey.secret),
      });
    });

    it('attaches no managed policy to any role', () => {
      for (const role of Object.values<Json>(template.findResources('AWS::IAM::Role'))) {
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });

    it('allows no wildcard action anywhere', () => {
      const wildcard = allStatements(template).filter(
        ({ statement }) => statement.Effect === 'Allow' && statement.Action.some((action) => action === '*' || action.endsWith(':*')),
      );
      expect(wildcard).toEqual([]);
    });

    it('allows Resource "*" only for scheduler:ListSchedules, which has no resource type', () => {
      const starred = allStatements(template)
        .filter(({ statement }) => statement.Effect === 'Allow' && statement.Resource.includes('*'))
        .map(({ owner, statement }) => ({ owner, actions: statement.Action }));
      expect(starred).toEqual([{ owner: logicalId(stack, stack.functions.reconcile.role), actions: ['scheduler:ListSchedules'] }]);
    });
  });
});
