import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateBucketCommand, S3Client, type BucketLocationConstraint } from '@aws-sdk/client-s3';
import { CreateScheduleGroupCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../local/dynalite.ts';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbNotificationRuleRepository } from '../../shared/adapters/dynamodb/dynamodb-notification-rule-repository.ts';
import { makeHttpPoster } from '../../shared/adapters/notifications/http-poster.ts';
import { signSessionToken } from '../../shared/auth/session-token.ts';
import { DEFAULT_TARGET_POLICY } from '../../shared/domain/network-policy.ts';
import { buildCli } from '../../layers/mailscan/test/helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../../layers/mailscan/test/helpers/dns-server.ts';
import { zoneDir } from '../../layers/mailscan/test/helpers/fixtures.ts';
import { buildEngineOf } from '../../layers/build.ts';
import { startFakeModel, type FakeModelServer } from '../../layers/llmscan/test/helpers/fake-model-server.ts';
import { DOCUMENTS, SYSTEM_CANARY, SYSTEM_PROMPT } from '../../layers/llmscan/test/helpers/planted.ts';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { apiGatewayEvent, lambdaContext } from '../helpers/api-gateway-event.ts';
import { startMotoServer, type MotoServer } from '../helpers/moto-server.ts';
import { emailRule, notificationRule } from '../helpers/service-events.ts';
import { synthesizedTemplate, type TemplateJson } from '../helpers/synth-without-bundling.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// The AWS composition end to end (DESIGN §7) on moto and dynalite: the authorizer, the schedules
// API, a schedule in EventBridge Scheduler, its fire played into SQS from the schedule's stored
// target, the dispatch function running the real mailscan against a loopback DNS server, the job,
// findings and issues in DynamoDB, the events on the bus through the stack's own rule, and the
// notifier sending an email through SES and a signed webhook. Every function's environment is its
// Environment.Variables in the synthesized dev template, resolved against the resources created
// here; only what points at this machine is set on top (engines dir, name servers, endpoints).

type Json = any;
type Handler = (event: unknown, context: Context) => Promise<Json>;

const TENANT = 'acme';
let template: TemplateJson;
let moto: MotoServer;
let dynamo: LocalDynamo;
let dns: TestDnsServer;
let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let model: FakeModelServer;
let sqs: SQSClient;
const physical = new Map<string, Record<string, string>>();

/** The template's resource `id` created in moto or dynalite at its first reference: its Ref and attributes. */
async function resource(id: string): Promise<Record<string, string>> {
  const known = physical.get(id);
  if (known) return known;
  const definition = template.Resources[id];
  if (!definition) throw new Error(`the template has no resource ${id}`);
  const props = definition.Properties ?? {};
  const config = moto.clientConfig;
  let made: Record<string, string>;
  switch (definition.Type) {
    case 'AWS::SQS::Queue': {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: id }));
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
      made = { Ref: QueueUrl!, Arn: Attributes!.QueueArn! };
      break;
    }
    case 'AWS::DynamoDB::Table':
      await ensureTable(dynamo.clientConfig, id);
      made = { Ref: id };
      break;
    case 'AWS::Events::EventBus': {
      const client = new EventBridgeClient(config);
      const { EventBusArn } = await client.send(new CreateEventBusCommand({ Name: props.Name }));
      made = { Ref: props.Name, Arn: EventBusArn!, Name: props.Name };
      break;
    }
    case 'AWS::SecretsManager::Secret': {
      const client = new SecretsManagerClient(config);
      // The session key secret holds a key; the operator keys secret a JSON object (none set here).
      const value = id.startsWith('SessionKey') ? randomBytes(48).toString('base64url') : '{}';
      const { ARN } = await client.send(new CreateSecretCommand({ Name: id, SecretString: value }));
      made = { Ref: ARN!, value };
      break;
    }
    case 'AWS::KMS::Key': {
      const { KeyMetadata } = await new KMSClient(config).send(new CreateKeyCommand({ Description: id }));
      made = { Ref: KeyMetadata!.KeyId!, Arn: KeyMetadata!.Arn! };
      break;
    }
    case 'AWS::IAM::Role':
      made = { Arn: `arn:aws:iam::${moto.accountId}:role/${id}` };
      break;
    case 'AWS::Logs::LogGroup':
      made = { Ref: id };
      break;
    case 'AWS::CloudFront::Distribution':
      made = { DomainName: 'd1234abcd.cloudfront.net' };
      break;
    default:
      throw new Error(`the test cannot stand in for ${definition.Type} (${id})`);
  }
  physical.set(id, made);
  return made;
}

/** A template value (Ref, Fn::GetAtt, Fn::Join of them, pseudo parameters) as the deployed stack would have it. */
async function resolve(value: Json): Promise<string> {
  if (typeof value === 'string') return value;
  if ('Ref' in value) {
    const pseudo: Record<string, string> = {
      'AWS::AccountId': moto.accountId,
      'AWS::Region': moto.region,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
    };
    return pseudo[value.Ref] ?? (await resource(value.Ref)).Ref;
  }
  if ('Fn::GetAtt' in value) {
    const [id, attribute] = value['Fn::GetAtt'];
    const found = (await resource(id))[attribute];
    if (found === undefined) throw new Error(`no ${attribute} for ${id}`);
    return found;
  }
  if ('Fn::Join' in value) {
    const [separator, parts] = value['Fn::Join'];
    return (await Promise.all(parts.map(resolve))).join(separator);
  }
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

/** The one Lambda function whose logical id starts with `prefix`. */
function functionOf(prefix: string): { id: string; props: Json } {
  const found = Object.entries(template.Resources).filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${found.length} functions named ${prefix}*`);
  return { id: found[0][0], props: found[0][1].Properties };
}

/** Sets the function's environment from the template (resolved) and imports its entry module: its cold start. */
async function coldStart(prefix: string, entry: string): Promise<Handler> {
  const { props } = functionOf(prefix);
  for (const [name, value] of Object.entries<Json>(props.Environment?.Variables ?? {})) process.env[name] = await resolve(value);
  Object.assign(process.env, machineSettings);
  const module = (await import(entry)) as { handler: Handler };
  return module.handler;
}

let machineSettings: Record<string, string> = {};

async function receiveAll(queueUrl: string): Promise<SQSEvent['Records']> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }),
  );
  for (const message of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
  return Messages.map((message) => ({
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body!,
    attributes: { ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1' },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody!,
    eventSource: 'aws:sqs',
    eventSourceARN: '',
    awsRegion: moto.region,
  })) as unknown as SQSEvent['Records'];
}

beforeAll(async () => {
  template = synthesizedTemplate('dev');
  [moto, dynamo, dns, webhook] = await Promise.all([
    startMotoServer(),
    startDynalite({ tableName: 'unused' }),
    startDnsServer({
      zoneDir,
      zones: [
        { text: readFileSync(join(zoneDir, 'bare.test.zone'), 'utf8').replaceAll('bare.test', 'baremail.com'), origin: 'baremail.com' },
      ],
    }),
    startWebhookReceiver(),
  ]);
  model = await startFakeModel({ behaviour: 'vulnerable', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS });
  sqs = new SQSClient(moto.clientConfig);
  // The layer mounts the engines at /opt/bin; here that is a folder holding this checkout's mailscan build.
  const enginesDir = mkdtempSync(join(tmpdir(), 'engines-'));
  symlinkSync(await buildCli(), join(enginesDir, 'mailscan'));
  // llmscan, the engine of the long resource class (DESIGN §11), for the long-class fire below.
  await buildEngineOf('llmscan', join(enginesDir, 'llmscan'));
  machineSettings = {
    AWS_REGION: moto.region,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    ENGINES_DIR: enginesDir,
    MAILSCAN_NAMESERVERS: dns.address,
    MAILSCAN_ALLOW_LOOPBACK: '1',
    // The loopback model server stands in for the tenant's assistant (no test touches the internet).
    LLMSCAN_ALLOW_LOOPBACK: '1',
    LOG_LEVEL: 'SILENT',
  };
  Object.assign(process.env, machineSettings);
}, 180_000);

afterAll(async () => {
  sqs?.destroy();
  await Promise.all([moto?.close(), dynamo?.close(), dns?.close(), webhook?.close(), model?.close()]);
});

describe('the AWS composition on moto and dynalite', () => {
  it('runs a scheduled email_security scan from the API to an email and a signed webhook', async () => {
    // The deployment's resources the template names but that no function's environment creates.
    const group = Object.values(template.Resources).find((r) => r.Type === 'AWS::Scheduler::ScheduleGroup')!.Properties.Name as string;
    await new SchedulerClient(moto.clientConfig).send(new CreateScheduleGroupCommand({ Name: group }));
    const s3 = new S3Client({ ...moto.clientConfig, forcePathStyle: true });
    const bucket = await resolve(functionOf('ScansFunction').props.Environment.Variables.ARTIFACT_BUCKET);
    await s3.send(
      new CreateBucketCommand({
        Bucket: bucket,
        CreateBucketConfiguration: { LocationConstraint: moto.region as BucketLocationConstraint },
      }),
    );
    const sender = functionOf('NotificationsNotifierFunction').props.Environment.Variables.NOTIFICATION_SENDER as string;
    await new SESv2Client(moto.clientConfig).send(new CreateEmailIdentityCommand({ EmailIdentity: sender }));
    // The stack's rule from the bus to the notification queue: its pattern and input transformer as synthesized.
    const [ruleId, rule] = Object.entries(template.Resources).find(
      ([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties.EventBusName !== undefined,
    )!;
    const events = new EventBridgeClient(moto.clientConfig);
    await events.send(
      new PutRuleCommand({
        Name: ruleId,
        EventBusName: await resolve(rule.Properties.EventBusName),
        EventPattern: JSON.stringify(rule.Properties.EventPattern),
      }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: ruleId,
        EventBusName: await resolve(rule.Properties.EventBusName),
        Targets: await Promise.all(
          rule.Properties.Targets.map(async (target: Json) => ({
            Id: target.Id,
            Arn: await resolve(target.Arn),
            InputTransformer: target.InputTransformer,
          })),
        ),
      }),
    );

    // Cold starts, each with its function's environment from the template.
    const authorizer = await coldStart('AuthorizerFunction', '../../functions/authorizer.ts');
    const schedules = await coldStart('SchedulesFunction', '../../functions/api/schedules.ts');
    const scans = await coldStart('ScansFunction', '../../functions/api/scans.ts');
    const dispatch = await coldStart('DispatchDispatchFunction', '../../functions/dispatch.ts');
    const notifierEnv = functionOf('NotificationsNotifierFunction').props.Environment.Variables;
    for (const [name, value] of Object.entries<Json>(notifierEnv)) process.env[name] = await resolve(value);
    Object.assign(process.env, machineSettings);
    const { awsNotifierAdapters, composeNotifier } = await import('../../functions/notifier-composition.ts');
    const { NotifierConfig, readConfig } = await import('../../shared/config/function-config.ts');
    const notifierConfig = readConfig(NotifierConfig);
    // The deployed notifier refuses loopback endpoints (a tenant's webhook is never inside the
    // deployment); this receiver is on loopback, so its HTTP poster admits loopback and nothing else changes.
    const notifier = composeNotifier(
      notifierConfig,
      { ...awsNotifierAdapters(notifierConfig), http: makeHttpPoster({ policy: DEFAULT_TARGET_POLICY, allowLoopback: true }) },
      (await import('../../shared/observability/logger.ts')).makeLogger('notifier'),
    ).handler as Handler;

    // The authorizer verifies a Bearer token signed with the key in the session key secret.
    const sessionKey = [...physical.entries()].find(([id]) => id.startsWith('SessionKey'))![1].value;
    const token = await signSessionToken({ sub: 'user-1', tenant: TENANT, role: 'admin' }, sessionKey);
    const authorized = await authorizer(
      { type: 'REQUEST', routeKey: 'POST /api/scans/schedules/', headers: { authorization: `Bearer ${token}` }, cookies: [] },
      lambdaContext('authorizer'),
    );
    expect(authorized.isAuthorized).toBe(true);
    const identity = authorized.context;

    // Notification rules of the tenant: an email and a webhook to the loopback receiver.
    const rules = makeDynamoDbNotificationRuleRepository(makeDocumentClient(dynamo.clientConfig), process.env.TABLE_NAME!);
    await rules.create(emailRule('nr_email'));
    const hook = notificationRule('nr_hook', { url: webhook.url, events: ['scan.finished', 'issue.opened'] });
    await rules.create(hook);
    webhook.useSecret(hook.secret!);

    // The schedules API creates the schedule and its EventBridge schedule.
    const created = await schedules(
      apiGatewayEvent('POST', '/api/scans/schedules/', {
        body: { name: 'mail posture', scan_type: 'email_security', target: 'baremail.com', cadence: 'daily', scope: { reputation: false } },
        authorizer: identity,
      }),
      lambdaContext('schedules'),
    );
    expect(created.statusCode).toBe(201);
    const schedule = JSON.parse(created.body);

    // moto never fires a schedule: play the fire from its stored target, as EventBridge Scheduler would.
    const stored = await new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: schedule.id, GroupName: group }));
    expect(stored.ScheduleExpression).toBe('cron(0 2 * * ? *)');
    const scanQueue = [...physical.values()].find((made) => made.Arn === stored.Target!.Arn)!;
    const scheduledTime = '2026-11-28T02:00:00Z';
    const fire = stored
      .Target!.Input!.replace('<aws.scheduler.scheduled-time>', scheduledTime)
      .replace('<aws.scheduler.execution-id>', randomUUID());
    await sqs.send(new SendMessageCommand({ QueueUrl: scanQueue.Ref, MessageBody: fire }));

    // The scan queue's event source hands the message to dispatch, which runs mailscan.
    const delivered = await receiveAll(scanQueue.Ref);
    const dispatched = await dispatch({ Records: delivered }, lambdaContext('dispatch', 300_000));
    expect(delivered).toHaveLength(1);
    expect(dispatched).toEqual({ batchItemFailures: [] });

    // The job, its findings and issues in DynamoDB, read through the scans API.
    const read = async (path: string) =>
      JSON.parse((await scans(apiGatewayEvent('GET', path, { authorizer: identity }), lambdaContext('scans'))).body);
    const jobs = (await read(`/api/scans/?schedule_id=${schedule.id}`)).items;
    expect(jobs).toEqual([expect.objectContaining({ trigger: 'cron', scheduled_time: scheduledTime, status: 'succeeded' })]);
    const findings = (await read(`/api/findings/?scan_id=${jobs[0].id}`)).items;
    expect(findings.length).toBeGreaterThan(0);
    const issues = (await read('/api/issues/')).items;
    expect(issues.length).toBe(new Set(findings.map((finding: { fingerprint: string }) => finding.fingerprint)).size);

    // The events reached the notification queue through the stack's rule, in the shape the notifier reads.
    const notificationQueue = await resolve(notifierEnv.NOTIFICATION_QUEUE_URL);
    let records = await receiveAll(notificationQueue);
    const kinds = records.map((record) => JSON.parse(record.body)).map((message) => [message.kind, message.event.type]);
    expect(kinds).toContainEqual(['event', 'scan.finished']);
    expect(kinds).toContainEqual(['event', 'issue.opened']);
    // The notifier fans each event out to its rules (deliveries back on the queue), then delivers them.
    for (let round = 0; round < 3 && records.length > 0; round += 1) {
      expect(await notifier({ Records: records }, lambdaContext('notifier', 45_000))).toEqual({ batchItemFailures: [] });
      records = await receiveAll(notificationQueue);
    }

    const emails = await moto.sentEmails();
    expect(emails).toContainEqual(expect.objectContaining({ source: sender, destinations: { ToAddresses: ['secops@example.com'] } }));
    expect(webhook.badSignatures).toEqual([]);
    expect([...webhook.accepted.values()].map((delivery) => delivery.eventType)).toContain('scan.finished');
    s3.destroy();
    events.destroy();
  }, 120_000);

  it('lands a long-class fire on the long queue, where the long dispatch function runs it (DESIGN §11)', async () => {
    // Runs after the test above: the schedule group, the table and the resources it made are there.
    const group = Object.values(template.Resources).find((r) => r.Type === 'AWS::Scheduler::ScheduleGroup')!.Properties.Name as string;
    const schedules = await coldStart('SchedulesFunction', '../../functions/api/schedules.ts');
    const scans = await coldStart('ScansFunction', '../../functions/api/scans.ts');
    // The long class's dispatch function: its environment from the template (RESOURCE_CLASS=long) and
    // its own log group, as Lambda sets it; composed as functions/dispatch.ts composes it (that
    // module is already loaded here with the standard function's environment).
    const long = functionOf('DispatchLongDispatchFunction');
    for (const [name, value] of Object.entries<Json>(long.props.Environment.Variables)) process.env[name] = await resolve(value);
    process.env.AWS_LAMBDA_LOG_GROUP_NAME = await resolve(long.props.LoggingConfig.LogGroup);
    Object.assign(process.env, machineSettings);
    expect(process.env.RESOURCE_CLASS).toBe('long');
    const { composeDispatch } = await import('../../functions/dispatch-composition.ts');
    const { makeDispatchHandler } = await import('../../functions/dispatch-handler.ts');
    const composed = composeDispatch('dispatch');
    const longDispatch = makeDispatchHandler(composed.dispatch, composed.logger, composed.metrics) as Handler;
    delete process.env.AWS_LAMBDA_LOG_GROUP_NAME;

    const sessionKey = [...physical.entries()].find(([id]) => id.startsWith('SessionKey'))![1].value;
    const token = await signSessionToken({ sub: 'user-1', tenant: TENANT, role: 'admin' }, sessionKey);
    const authorizer = await coldStart('AuthorizerFunction', '../../functions/authorizer.ts');
    const identity = (
      await authorizer(
        { type: 'REQUEST', routeKey: 'POST /api/scans/schedules/', headers: { authorization: `Bearer ${token}` }, cookies: [] },
        lambdaContext('authorizer'),
      )
    ).context;

    // An ai_red_team schedule (llmscan: the long class) through the schedules API.
    const created = await schedules(
      apiGatewayEvent('POST', '/api/scans/schedules/', {
        body: {
          name: 'assistant',
          scan_type: 'ai_red_team',
          target: 'https://assistant.example.com/v1/chat/completions',
          cadence: 'daily',
          // At llmscan's highest rate (10 requests a second; its default 1 made this scan 17 s).
          scope: { families: ['system_prompt'], system_prompt_canary: SYSTEM_CANARY, rate: 10 },
        },
        authorizer: identity,
      }),
      lambdaContext('schedules'),
    );
    expect(created.statusCode).toBe(201);
    const schedule = JSON.parse(created.body);
    // The assistant as this machine reaches it: the loopback model server. The API refuses loopback
    // in AWS (and no test resolves a public name), so the stored row's target is pointed at it here.
    const rows = makeDynamoDbScheduleRepository(makeDocumentClient(dynamo.clientConfig), process.env.TABLE_NAME!);
    const row = (await rows.get(TENANT, schedule.id))!;
    await rows.update({ ...row, target: `${model.origin}/v1/chat/completions`, version: row.version + 1 });

    // Its EventBridge schedule targets the long queue, not the standard one.
    const stored = await new SchedulerClient(moto.clientConfig).send(new GetScheduleCommand({ Name: schedule.id, GroupName: group }));
    const queues = functionOf('SchedulesFunction').props.Environment.Variables;
    expect(stored.Target!.Arn).toBe(await resolve(queues.SCAN_QUEUE_ARN_LONG));
    expect(stored.Target!.Arn).not.toBe(await resolve(queues.SCAN_QUEUE_ARN));

    // The fire, played from the stored target, lands on the long queue; the long function runs llmscan.
    const queueUrl = [...physical.values()].find((made) => made.Arn === stored.Target!.Arn)!.Ref;
    const scheduledTime = '2026-11-28T02:00:00Z';
    const fire = stored
      .Target!.Input!.replace('<aws.scheduler.scheduled-time>', scheduledTime)
      .replace('<aws.scheduler.execution-id>', randomUUID());
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: fire }));
    const delivered = await receiveAll(queueUrl);
    expect(delivered).toHaveLength(1);
    expect(await longDispatch({ Records: delivered }, lambdaContext('dispatch', 900_000))).toEqual({ batchItemFailures: [] });

    const read = async (path: string) =>
      JSON.parse((await scans(apiGatewayEvent('GET', path, { authorizer: identity }), lambdaContext('scans'))).body);
    const jobs = (await read(`/api/scans/?schedule_id=${schedule.id}`)).items;
    expect(jobs).toEqual([expect.objectContaining({ scan_type: 'ai_red_team', trigger: 'cron', status: 'succeeded' })]);
    // Its lines are in the long function's log group, and llmscan's system-prompt probe found the leak.
    expect(jobs[0].log.log_group).toBe(await resolve(long.props.LoggingConfig.LogGroup));
    const findings = (await read(`/api/findings/?scan_id=${jobs[0].id}`)).items;
    expect(findings.map((finding: { rule_id: string }) => finding.rule_id)).toContain('llm.system_prompt.leak');
  }, 120_000);
});
