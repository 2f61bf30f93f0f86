import { App, Duration, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiGatewayPath, apiGatewayRoutes } from '../../infra/api-routes.ts';
import {
  DEAD_LETTER_TIMEOUT,
  DISPATCH_TIMEOUT,
  DispatchSetupError,
  MAILSCAN_BIN,
  checkMailscanLayer,
  checkVisibilityTimeout,
} from '../../infra/constructs/dispatch.ts';
import { EnvironmentSelectionError, resolveEnvironment, type EnvironmentName } from '../../infra/environment-settings.ts';
import { repositoryRoot } from '../../infra/paths.ts';
import { addScanServiceStack } from '../../infra/scan-service-app.ts';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import { ENV } from '../../shared/config/environment.ts';
import { createTableInput } from '../../shared/adapters/dynamodb/table-definition.ts';
import { pathVariants, routes } from '../../shared/http/routes.ts';
import { DISPATCH_TIMEOUT_MS } from '../../local/runtime.ts';

/** CloudFormation template JSON, untyped by nature: whatever Template.toJSON() holds. */
type Json = ReturnType<Template['toJSON']>[string];
interface Statement {
  Effect: string;
  Action: string[];
  Resource: Json[];
  Condition?: Json;
  Principal?: Json;
}

const cdkContext = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')).context;
const environments: EnvironmentName[] = ['dev', 'prod'];
/** Stands in for the `npm run build` output: a placeholder bin/mailscan, so no build is needed. */
const fixtureLayer = join(repositoryRoot, 'test/infra/fixtures/mailscan-layer');

/** One synth per environment for the whole file: bundling seven functions takes seconds. */
const synthesized = {} as Record<EnvironmentName, { stack: ScanServiceStack; template: Template }>;

beforeAll(() => {
  for (const env of environments) {
    const started = performance.now();
    const stack = addScanServiceStack(new App({ context: { ...cdkContext, env } }), { mailscanLayerPath: fixtureLayer });
    synthesized[env] = { stack, template: Template.fromStack(stack) };
    console.info(`synth ${env}: ${Math.round(performance.now() - started)} ms`);
  }
}, 180_000);

// ---- helpers ---------------------------------------------------------------------------------

function logicalId(stack: Stack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function ref(stack: Stack, construct: IConstruct): Json {
  return { Ref: logicalId(stack, construct) };
}

function arnOf(stack: Stack, construct: IConstruct): Json {
  return { 'Fn::GetAtt': [logicalId(stack, construct), 'Arn'] };
}

function asList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function normalise(statement: Json): Statement {
  return { ...statement, Action: asList(statement.Action), Resource: asList(statement.Resource) };
}

/** `arn:<partition>:scheduler:<region>:<account>:<suffix>` as the template writes it. */
function schedulerArn(suffix: string): Json {
  return {
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${suffix}`]],
  };
}

/** Every identity-policy statement that applies to the role: attached AWS::IAM::Policy and inline. */
function statementsOfRole(template: Template, roleId: string): Statement[] {
  const role = template.toJSON().Resources[roleId];
  expect(role.Type).toBe('AWS::IAM::Role');
  const inline = asList<Json>(role.Properties.Policies).flatMap((policy) => policy.PolicyDocument.Statement);
  const attached = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy: Json) => asList(policy.Properties.Roles).some((r: Json) => r.Ref === roleId))
    .flatMap((policy: Json) => policy.Properties.PolicyDocument.Statement as Json[]);
  return [...inline, ...attached].map(normalise);
}

/** Every statement of every policy document in the template (identity and resource policies). */
function allStatements(template: Template): Array<{ owner: string; statement: Statement }> {
  const found: Array<{ owner: string; statement: Statement }> = [];
  for (const [id, resource] of Object.entries<Json>(template.toJSON().Resources)) {
    const documents: Json[] = [];
    if (resource.Properties?.PolicyDocument) documents.push(resource.Properties.PolicyDocument);
    for (const policy of asList<Json>(resource.Properties?.Policies)) documents.push(policy.PolicyDocument);
    const owner = resource.Type === 'AWS::IAM::Policy' ? asList<Json>(resource.Properties.Roles)[0].Ref : id;
    for (const document of documents) for (const statement of document.Statement) found.push({ owner, statement: normalise(statement) });
  }
  return found;
}

function logStatement(stack: ScanServiceStack, fn: keyof ScanServiceStack['functions']): Statement {
  return {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: [arnOf(stack, stack.functions[fn].logGroup)],
  };
}

/** Exactly `actions` on the table itself; no index unless a Query statement says so. */
function tableItemStatement(stack: ScanServiceStack, actions: string[]): Statement {
  return { Effect: 'Allow', Action: actions, Resource: [arnOf(stack, stack.storage.table)] };
}

/** Query on the indexes, granted beside a table statement that lists Query. */
function indexQueryStatement(stack: ScanServiceStack): Statement {
  return { Effect: 'Allow', Action: ['dynamodb:Query'], Resource: [{ 'Fn::Join': ['', [arnOf(stack, stack.storage.table), '/index/*']] }] };
}

/** What an SQS event source grants its function on the queue it polls (Queue.grantConsumeMessages). */
function consumeStatement(stack: ScanServiceStack, queue: IConstruct): Statement {
  return {
    Effect: 'Allow',
    Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    Resource: [arnOf(stack, queue)],
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

function functionResource(env: EnvironmentName, fn: keyof ScanServiceStack['functions']): Json {
  const { stack, template } = synthesized[env];
  return template.toJSON().Resources[logicalId(stack, stack.functions[fn].handler)];
}

// ---- tests -----------------------------------------------------------------------------------

describe('environment selection', () => {
  it('rejects a missing or unknown -c env with the accepted names', () => {
    expect(() => resolveEnvironment(undefined, cdkContext.environments)).toThrow(EnvironmentSelectionError);
    expect(() => resolveEnvironment('staging', cdkContext.environments)).toThrow(/-c env=dev\|prod \(got "staging"\)/);
  });

  it('rejects settings that do not match the schema', () => {
    const broken = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, logRetentionDays: 10 } };
    expect(() => resolveEnvironment('dev', broken)).toThrow(/logRetentionDays/);
  });

  it('rejects a dispatch concurrency cap the SQS event source does not accept', () => {
    const broken = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, dispatch: { maxConcurrency: 1 } } };
    expect(() => resolveEnvironment('dev', broken)).toThrow(/dispatch\.maxConcurrency/);
  });
});

describe('dispatch setup checks', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'infra-layer-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** A stack for `env=dev` with `changes` applied to its settings; fails before any bundling. */
  function buildDev(changes: Record<string, unknown>, mailscanLayerPath = fixtureLayer): ScanServiceStack {
    const environments = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, ...changes } };
    return addScanServiceStack(new App({ context: { ...cdkContext, environments, env: 'dev' } }), { mailscanLayerPath });
  }

  it('keeps the dispatch timeout equal to the one the local runtime assumes', () => {
    expect(DISPATCH_TIMEOUT.toMilliseconds()).toBe(DISPATCH_TIMEOUT_MS);
  });

  it('accepts a visibility timeout of exactly 6x the consumer timeout and refuses one second less', () => {
    expect(() => checkVisibilityTimeout('scan queue', Duration.seconds(1800), Duration.minutes(5))).not.toThrow();
    expect(() => checkVisibilityTimeout('scan queue', Duration.seconds(1799), Duration.minutes(5))).toThrow(
      /scan queue visibility timeout is 1799 s; it must be at least 1800 s/,
    );
  });

  it('refuses to build a stack whose scan queue visibility is under 6x the dispatch timeout', () => {
    const scanQueue = { ...cdkContext.environments.dev.scanQueue, visibilityTimeoutSeconds: 900 };
    expect(() => buildDev({ scanQueue })).toThrow(DispatchSetupError);
    expect(() => buildDev({ scanQueue })).toThrow(/at least 1800 s/);
  });

  it('refuses to build without bin/mailscan and says to run npm run build', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expect(() => buildDev({}, empty)).toThrow(DispatchSetupError);
    expect(() => buildDev({}, empty)).toThrow(/bin\/mailscan\. Run `npm run build` before `cdk synth` or `cdk deploy`/);
  });

  it('refuses a bin/mailscan that is not executable', () => {
    const layer = join(scratch, 'not-executable');
    mkdirSync(join(layer, 'bin'), { recursive: true });
    writeFileSync(join(layer, 'bin', 'mailscan'), '#!/bin/sh\n');
    chmodSync(join(layer, 'bin', 'mailscan'), 0o644);
    expect(() => checkMailscanLayer(layer)).toThrow(DispatchSetupError);
  });

  it('accepts the test fixture layer', () => {
    expect(() => checkMailscanLayer(fixtureLayer)).not.toThrow();
  });
});

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const group = settings.scheduleGroupName;
  const t = () => synthesized[env].template;
  const s = () => synthesized[env].stack;

  describe('storage', () => {
    it('builds the table from the shared table definition', () => {
      const expected = createTableInput('unused');
      const tables = t().findResources('AWS::DynamoDB::Table');
      expect(Object.keys(tables)).toHaveLength(1);
      const table = Object.values<Json>(tables)[0].Properties;
      expect(table.KeySchema).toEqual(expected.KeySchema);
      expect(table.GlobalSecondaryIndexes).toEqual(expected.GlobalSecondaryIndexes);
      expect(table.BillingMode).toBe(expected.BillingMode);
      expect(new Set(table.AttributeDefinitions)).toEqual(new Set(expected.AttributeDefinitions));
      expect(table.AttributeDefinitions).toHaveLength(expected.AttributeDefinitions.length);
    });

    it('turns point-in-time recovery on', () => {
      t().hasResourceProperties('AWS::DynamoDB::Table', {
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
    });

    it(env === 'prod' ? 'retains and protects the table' : 'deletes the table with the stack', () => {
      const retain = env === 'prod';
      t().hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: retain ? 'Retain' : 'Delete',
        UpdateReplacePolicy: retain ? 'Retain' : 'Delete',
        Properties: Match.objectLike({ DeletionProtectionEnabled: retain }),
      });
    });
  });

  describe('scheduling', () => {
    it('creates the environment schedule group', () => {
      t().resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
      t().hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: group });
    });

    it('redrives the scan queue to its DLQ after maxReceiveCount receives', () => {
      const stack = s();
      t().hasResourceProperties('AWS::SQS::Queue', {
        VisibilityTimeout: settings.scanQueue.visibilityTimeoutSeconds,
        MessageRetentionPeriod: settings.scanQueue.retentionDays * 86_400,
        RedrivePolicy: {
          deadLetterTargetArn: arnOf(stack, stack.scheduling.scanDeadLetterQueue),
          maxReceiveCount: settings.scanQueue.maxReceiveCount,
        },
      });
    });

    it('keeps each consumed queue invisible for at least 6x its consumer timeout', () => {
      const stack = s();
      const resources = t().toJSON().Resources;
      const pairs = [
        { queue: stack.scheduling.scanQueue, consumer: stack.functions.dispatch },
        { queue: stack.scheduling.scanDeadLetterQueue, consumer: stack.functions.dispatchDeadLetter },
      ];
      for (const { queue, consumer } of pairs) {
        const visibility = resources[logicalId(stack, queue)].Properties.VisibilityTimeout;
        const timeout = resources[logicalId(stack, consumer.handler)].Properties.Timeout;
        expect(visibility, queue.node.path).toBeGreaterThanOrEqual(6 * timeout);
      }
      expect(resources[logicalId(stack, stack.scheduling.scanQueue)].Properties.VisibilityTimeout).toBe(settings.scanQueue.visibilityTimeoutSeconds);
      expect(resources[logicalId(stack, stack.scheduling.scanDeadLetterQueue)].Properties.VisibilityTimeout).toBe(6 * DEAD_LETTER_TIMEOUT.toSeconds());
    });

    it('encrypts every queue with SQS-managed keys and denies plain HTTP', () => {
      const queues = t().findResources('AWS::SQS::Queue');
      expect(Object.keys(queues)).toHaveLength(3);
      for (const [id, queue] of Object.entries<Json>(queues)) {
        expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
        t().hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: [
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ],
          },
        });
      }
    });

    it('lets only EventBridge Scheduler acting for this group assume the execution role', () => {
      const stack = s();
      const role = t().toJSON().Resources[logicalId(stack, stack.scheduling.executionRole)];
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

    it('allows the execution role only sqs:SendMessage to the scan queue and the scheduler DLQ', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.scheduling.executionRole))).toEqual([
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage'],
          Resource: [arnOf(stack, stack.scheduling.scanQueue), arnOf(stack, stack.scheduling.schedulerDeadLetterQueue)],
        },
      ]);
    });
  });

  describe('function permissions', () => {
    it('gives the schedules function table items, the group schedules and PassRole to the scheduler only', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.schedules.role))).toEqual([
        logStatement(stack, 'schedules'),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
        indexQueryStatement(stack),
        ...triggerStatements(stack, group),
      ]);
    });

    it('gives reconcile Query, Scan and the counter put, the group schedules, and ListSchedules', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.reconcile.role))).toEqual([
        logStatement(stack, 'reconcile'),
        tableItemStatement(stack, ['dynamodb:Query', 'dynamodb:Scan', 'dynamodb:PutItem']),
        indexQueryStatement(stack),
        ...triggerStatements(stack, group),
        { Effect: 'Allow', Action: ['scheduler:ListSchedules'], Resource: ['*'] },
      ]);
    });

    it('gives the scans function its table reads and writes, Query on the indexes, and SendMessage to the scan queue', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.scans.role))).toEqual([
        logStatement(stack, 'scans'),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
        { Effect: 'Allow', Action: ['dynamodb:Query'], Resource: [{ 'Fn::Join': ['', [arnOf(stack, stack.storage.table), '/index/*']] }] },
        { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [arnOf(stack, stack.scheduling.scanQueue)] },
      ]);
    });

    it('lets the dispatch function consume the scan queue and read and write items, nothing else', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.dispatch.role))).toEqual([
        logStatement(stack, 'dispatch'),
        consumeStatement(stack, stack.scheduling.scanQueue),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem']),
      ]);
    });

    it('lets the dead-letter function consume the scan DLQ and read and write items, nothing else', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.dispatchDeadLetter.role))).toEqual([
        logStatement(stack, 'dispatchDeadLetter'),
        consumeStatement(stack, stack.scheduling.scanDeadLetterQueue),
        tableItemStatement(stack, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
      ]);
    });

    it('lets only the scheduler execution role and the scans function send to the scan queue', () => {
      const stack = s();
      const senders = allStatements(t())
        .filter(({ statement }) => statement.Effect === 'Allow' && statement.Action.includes('sqs:SendMessage'))
        .map(({ owner }) => owner);
      expect(senders.sort()).toEqual(
        [logicalId(stack, stack.scheduling.executionRole), logicalId(stack, stack.functions.scans.role)].sort(),
      );
    });

    it('lets only the two consumers receive from a queue, each from its own', () => {
      const stack = s();
      const receivers = allStatements(t())
        .filter(({ statement }) => statement.Effect === 'Allow' && statement.Action.includes('sqs:ReceiveMessage'))
        .map(({ owner, statement }) => ({ owner, queues: statement.Resource }));
      expect(receivers).toEqual([
        { owner: logicalId(stack, stack.functions.dispatch.role), queues: [arnOf(stack, stack.scheduling.scanQueue)] },
        { owner: logicalId(stack, stack.functions.dispatchDeadLetter.role), queues: [arnOf(stack, stack.scheduling.scanDeadLetterQueue)] },
      ]);
    });

    it('gives the meta function nothing beyond its own log group', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.meta.role))).toEqual([logStatement(stack, 'meta')]);
    });

    it('lets only the authorizer read the session key', () => {
      const stack = s();
      expect(statementsOfRole(t(), logicalId(stack, stack.functions.authorizer.role))).toEqual([
        logStatement(stack, 'authorizer'),
        { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [ref(stack, stack.sessionKey.secret)] },
      ]);
      const readers = allStatements(t()).filter(({ statement }) => statement.Action.some((a) => a.startsWith('secretsmanager:')));
      expect(readers.map(({ owner }) => owner)).toEqual([logicalId(stack, stack.functions.authorizer.role)]);
    });

    it('attaches no managed policy to any role', () => {
      for (const role of Object.values<Json>(t().findResources('AWS::IAM::Role'))) {
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });

    it('allows no wildcard action anywhere', () => {
      const wildcard = allStatements(t()).filter(
        ({ statement }) => statement.Effect === 'Allow' && statement.Action.some((action) => action === '*' || action.endsWith(':*')),
      );
      expect(wildcard).toEqual([]);
    });

    it('allows Resource "*" only for scheduler:ListSchedules, which has no resource type', () => {
      const stack = s();
      const starred = allStatements(t())
        .filter(({ statement }) => statement.Effect === 'Allow' && statement.Resource.includes('*'))
        .map(({ owner, statement }) => ({ owner, actions: statement.Action }));
      expect(starred).toEqual([{ owner: logicalId(stack, stack.functions.reconcile.role), actions: ['scheduler:ListSchedules'] }]);
    });
  });

  describe('functions', () => {
    it('runs every function on nodejs24.x and arm64', () => {
      const functions = Object.values<Json>(t().findResources('AWS::Lambda::Function'));
      expect(functions).toHaveLength(7);
      for (const fn of functions) {
        expect(fn.Properties.Runtime).toBe('nodejs24.x');
        expect(fn.Properties.Architectures).toEqual(['arm64']);
      }
    });

    it(`keeps every log group ${settings.logRetentionDays} days and gives each function its own`, () => {
      const stack = s();
      const logGroups = t().findResources('AWS::Logs::LogGroup');
      for (const logGroup of Object.values<Json>(logGroups)) {
        expect(logGroup.Properties.RetentionInDays).toBe(settings.logRetentionDays);
        expect(logGroup.DeletionPolicy).toBe(env === 'prod' ? 'Retain' : 'Delete');
      }
      for (const fn of Object.values(stack.functions)) {
        const resource = t().toJSON().Resources[logicalId(stack, fn.handler)];
        expect(resource.Properties.LoggingConfig).toEqual({ LogGroup: ref(stack, fn.logGroup) });
      }
    });

    it('sets exactly the environment each function reads', () => {
      const powertools = ['POWERTOOLS_SERVICE_NAME', 'LOG_LEVEL', 'NODE_OPTIONS', ENV.environment, ENV.serviceVersion];
      const triggers = [ENV.tableName, ENV.scheduleGroupName, ENV.scanQueueArn, ENV.schedulerRoleArn, ENV.schedulerDlqArn];
      const expected = {
        schedules: [...powertools, ...triggers, ENV.allowedOrigins, ENV.scheduleQuota],
        scans: [...powertools, ENV.tableName, ENV.scanQueueUrl, ENV.dispatchLogGroup, ENV.allowedOrigins, ENV.scheduleQuota],
        reconcile: [...powertools, ...triggers],
        meta: [...powertools, ENV.allowedOrigins, ENV.scanRunners],
        authorizer: [...powertools, ENV.sessionKeySecretArn],
        dispatch: [...powertools, ENV.tableName, ENV.mailscanBin],
        dispatchDeadLetter: [...powertools, ENV.tableName],
      };
      expect(Object.keys(expected).sort()).toEqual(Object.keys(s().functions).sort());
      for (const [fn, names] of Object.entries(expected)) {
        const variables = functionResource(env, fn as keyof typeof expected).Properties.Environment.Variables;
        expect(Object.keys(variables).sort(), fn).toEqual([...names].sort());
      }
    });

    it('points the trigger variables at this stack’s group, queue, role and DLQ', () => {
      const stack = s();
      const variables = functionResource(env, 'schedules').Properties.Environment.Variables;
      expect(variables).toMatchObject({
        [ENV.tableName]: ref(stack, stack.storage.table),
        [ENV.scheduleGroupName]: group,
        [ENV.scanQueueArn]: arnOf(stack, stack.scheduling.scanQueue),
        [ENV.schedulerRoleArn]: arnOf(stack, stack.scheduling.executionRole),
        [ENV.schedulerDlqArn]: arnOf(stack, stack.scheduling.schedulerDeadLetterQueue),
        [ENV.allowedOrigins]: settings.allowedOrigins.join(','),
        [ENV.scheduleQuota]: String(settings.scheduleQuota),
        [ENV.environment]: env,
        LOG_LEVEL: settings.logLevel,
      });
    });

    it('tells the meta function that email_security has a runner, the one the mailscan layer serves', () => {
      expect(functionResource(env, 'meta').Properties.Environment.Variables[ENV.scanRunners]).toBe('email_security');
    });

    it('points the scans function at the scan queue and the dispatch log group', () => {
      const stack = s();
      expect(functionResource(env, 'scans').Properties.Environment.Variables).toMatchObject({
        [ENV.tableName]: ref(stack, stack.storage.table),
        [ENV.scanQueueUrl]: ref(stack, stack.scheduling.scanQueue),
        [ENV.dispatchLogGroup]: ref(stack, stack.functions.dispatch.logGroup),
        [ENV.allowedOrigins]: settings.allowedOrigins.join(','),
        [ENV.scheduleQuota]: String(settings.scheduleQuota),
      });
    });

    it('sizes the dispatch function for one scan per invocation: 1024 MB, 5 minutes', () => {
      const dispatch = functionResource(env, 'dispatch').Properties;
      expect(dispatch.MemorySize).toBe(1024);
      expect(dispatch.Timeout).toBe(DISPATCH_TIMEOUT.toSeconds());
      expect(dispatch.Timeout).toBe(300);
      expect(functionResource(env, 'dispatchDeadLetter').Properties.Timeout).toBe(DEAD_LETTER_TIMEOUT.toSeconds());
    });

    it('attaches the mailscan layer to the dispatch function only, with MAILSCAN_BIN at its mount point', () => {
      const stack = s();
      const layerId = logicalId(stack, stack.dispatch.mailscanLayer);
      t().hasResourceProperties('AWS::Lambda::LayerVersion', {
        CompatibleRuntimes: ['nodejs24.x'],
        CompatibleArchitectures: ['arm64'],
      });
      t().resourceCountIs('AWS::Lambda::LayerVersion', 1);
      const dispatch = functionResource(env, 'dispatch').Properties;
      expect(dispatch.Layers).toEqual([{ Ref: layerId }]);
      expect(dispatch.Environment.Variables[ENV.mailscanBin]).toBe(MAILSCAN_BIN);
      expect(MAILSCAN_BIN).toBe('/opt/bin/mailscan');
      const withLayers = Object.entries<Json>(t().findResources('AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Layers);
      expect(withLayers.map(([id]) => id)).toEqual([logicalId(stack, stack.functions.dispatch.handler)]);
    });

    it('runs reconcile nightly from an EventBridge rule', () => {
      const stack = s();
      t().hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: settings.reconcileCron,
        Targets: [Match.objectLike({ Arn: arnOf(stack, stack.functions.reconcile.handler) })],
      });
    });
  });

  describe('queue consumers', () => {
    function mappingOf(fn: keyof ScanServiceStack['functions']): Json {
      const stack = s();
      const mappings = Object.values<Json>(t().findResources('AWS::Lambda::EventSourceMapping')).filter(
        (mapping) => mapping.Properties.FunctionName.Ref === logicalId(stack, stack.functions[fn].handler),
      );
      expect(mappings, fn).toHaveLength(1);
      return mappings[0].Properties;
    }

    it('has exactly two event source mappings: the scan queue and the scan DLQ', () => {
      t().resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    });

    it(`feeds dispatch one scan at a time, reports item failures, and caps concurrency at ${settings.dispatch.maxConcurrency}`, () => {
      const stack = s();
      expect(mappingOf('dispatch')).toMatchObject({
        EventSourceArn: arnOf(stack, stack.scheduling.scanQueue),
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: settings.dispatch.maxConcurrency },
      });
      expect(mappingOf('dispatch').MaximumBatchingWindowInSeconds).toBeUndefined();
    });

    it('feeds the dead-letter function the scan DLQ ten at a time with item failures reported', () => {
      const stack = s();
      expect(mappingOf('dispatchDeadLetter')).toMatchObject({
        EventSourceArn: arnOf(stack, stack.scheduling.scanDeadLetterQueue),
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    it('leaves the scheduler DLQ without a consumer, for an operator to inspect and resend', () => {
      const stack = s();
      const sources = Object.values<Json>(t().findResources('AWS::Lambda::EventSourceMapping')).map((m) => m.Properties.EventSourceArn);
      expect(sources).not.toContainEqual(arnOf(stack, stack.scheduling.schedulerDeadLetterQueue));
    });
  });

  describe('alarms', () => {
    function alarmOf(construct: IConstruct): Json {
      const stack = s();
      return t().toJSON().Resources[logicalId(stack, construct)].Properties;
    }

    function expectQueueAlarm(id: string, queue: IConstruct, metricName: string, statistic: string): void {
      const stack = s();
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
      expectQueueAlarm('SchedulerDeadLettersWaiting', s().scheduling.schedulerDeadLetterQueue, 'ApproximateNumberOfMessagesVisible', 'Maximum');
    });

    it('alarms when a message waits in the scan DLQ (its handler is not draining it)', () => {
      expectQueueAlarm('ScanDeadLettersWaiting', s().scheduling.scanDeadLetterQueue, 'ApproximateNumberOfMessagesVisible', 'Maximum');
    });

    it('alarms when the dead-letter function receives a scan dead letter', () => {
      expectQueueAlarm('ScanDeadLettersReceived', s().scheduling.scanDeadLetterQueue, 'NumberOfMessagesReceived', 'Sum');
    });

    it('has exactly these three alarms, all notifying the alarm topic', () => {
      t().resourceCountIs('AWS::CloudWatch::Alarm', 3);
      t().resourceCountIs('AWS::SNS::Topic', 1);
      // SNS's default topic policy is what lets CloudWatch publish; a policy of our own would replace it.
      t().resourceCountIs('AWS::SNS::TopicPolicy', 0);
    });
  });

  describe('api', () => {
    function routeKeys(): Map<string, Json> {
      const byKey = new Map<string, Json>();
      for (const route of Object.values<Json>(t().findResources('AWS::ApiGatewayV2::Route'))) byKey.set(route.Properties.RouteKey, route.Properties);
      return byKey;
    }

    function authorizerId(): string {
      const authorizers = t().findResources('AWS::ApiGatewayV2::Authorizer');
      expect(Object.keys(authorizers)).toHaveLength(1);
      return Object.keys(authorizers)[0];
    }

    /** The function an API route invokes, followed through its integration. */
    function functionBehind(route: Json): string {
      const integrationId = route.Target['Fn::Join'][1][1].Ref;
      const integration = t().toJSON().Resources[integrationId];
      return integration.Properties.IntegrationUri['Fn::GetAtt'][0];
    }

    it('uses a REQUEST authorizer with simple responses, no identity source and no cache', () => {
      const stack = s();
      t().hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
        AuthorizerType: 'REQUEST',
        EnableSimpleResponses: true,
        AuthorizerPayloadFormatVersion: '2.0',
        IdentitySource: [],
        AuthorizerResultTtlInSeconds: 0,
        AuthorizerUri: Match.objectLike({
          'Fn::Join': ['', Match.arrayWith([arnOf(stack, stack.functions.authorizer.handler)])],
        }),
      });
    });

    it('serves every route of shared/http/routes.ts with and without its trailing slash', () => {
      const stack = s();
      const keys = routeKeys();
      const handlerIds = {
        schedules: logicalId(stack, stack.functions.schedules.handler),
        scans: logicalId(stack, stack.functions.scans.handler),
        meta: logicalId(stack, stack.functions.meta.handler),
      };
      for (const route of routes) {
        for (const variant of pathVariants(route.path)) {
          const deployed = keys.get(`${route.method} ${apiGatewayPath(variant)}`);
          expect(deployed, `${route.method} ${variant}`).toBeDefined();
          expect(functionBehind(deployed)).toBe(handlerIds[route.handler]);
        }
      }
      expect(keys.size).toBe(apiGatewayRoutes(routes).length);
    });

    it('puts the authorizer on every authenticated route and none on health, openapi and sign-out', () => {
      const keys = routeKeys();
      const authorizer = authorizerId();
      for (const route of routes) {
        const deployed = keys.get(`${route.method} ${apiGatewayPath(route.path)}`);
        if (route.authenticated) {
          expect(deployed, route.path).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizer } });
        } else {
          expect(deployed.AuthorizationType, route.path).toBe('NONE');
          expect(deployed.AuthorizerId, route.path).toBeUndefined();
        }
      }
      expect(routes.filter((route) => !route.authenticated).map((route) => `${route.method} ${route.path}`)).toEqual(['DELETE /api/session', 'GET /api/health', 'GET /api/openapi.json']);
    });

    it('never declares a route key ending in a slash, which API Gateway rejects', () => {
      for (const key of routeKeys().keys()) expect(key).not.toMatch(/.\/$/);
    });

    it('throttles the $default stage and writes JSON access logs', () => {
      t().hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: {
          ThrottlingRateLimit: settings.api.throttleRateLimit,
          ThrottlingBurstLimit: settings.api.throttleBurstLimit,
        },
        AccessLogSettings: Match.objectLike({ Format: Match.stringLikeRegexp('"routeKey":"\\$context.routeKey"') }),
      });
    });

    it('allows CORS preflights only from the configured origins, with credentials', () => {
      t().hasResourceProperties('AWS::ApiGatewayV2::Api', {
        CorsConfiguration: Match.objectLike({ AllowOrigins: settings.allowedOrigins, AllowCredentials: true }),
      });
    });
  });

  it('outputs the API URL, table, queues, group name, function names and alarm topic', () => {
    const stack = s();
    const outputs = Object.keys(t().toJSON().Outputs);
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
    t().hasOutput('ScheduleGroupName', { Value: group });
    t().hasOutput('ScansFunctionName', { Value: ref(stack, stack.functions.scans.handler) });
    t().hasOutput('DispatchFunctionName', { Value: ref(stack, stack.functions.dispatch.handler) });
  });
});
