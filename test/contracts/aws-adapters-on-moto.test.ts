import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateBucketCommand, type BucketLocationConstraint } from '@aws-sdk/client-s3';
import { CreateSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeEventBridgePublisher } from '../../shared/adapters/eventbridge/eventbridge-event-publisher.ts';
import { makeCloudWatchScanLogs } from '../../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { makeSesEmailSender } from '../../shared/adapters/notifications/ses-email-sender.ts';
import { makeS3ArtifactStore } from '../../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../../shared/adapters/s3/s3-client.ts';
import { makeLegacyDatabaseUrlLoader } from '../../shared/adapters/secrets/legacy-database-url.ts';
import { makeOperatorKeysLoader } from '../../shared/adapters/secrets/operator-keys.ts';
import { makeSessionKeysLoader } from '../../shared/adapters/secrets/session-key.ts';
import { SqsMessageQueue } from '../../shared/adapters/sqs/sqs-message-queue.ts';
import { makeSqsNotificationQueue } from '../../shared/adapters/sqs/sqs-notification-queue.ts';
import { makeSqsClient } from '../../shared/adapters/sqs/sqs-client.ts';
import { DispatchFailedError } from '../../shared/domain/errors.ts';
import { EVENT_SOURCE } from '../../shared/domain/notification.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { putUpload } from '../helpers/artifact-upload.ts';
import { startMotoServer, type MotoServer } from '../helpers/moto-server.ts';
import { scanFinishedEvent } from '../helpers/service-events.ts';

// Every AWS adapter against moto_server (DESIGN §7): the SDK's real wire protocol, moto's account
// state. What moto cannot show stays on aws-sdk-client-mock tests (docs/aws-on-moto.md). The
// EventBridge Scheduler adapter has its own file (eventbridge-trigger-scheduler-contract.test.ts).

let moto: MotoServer;
let sqs: SQSClient;
beforeAll(async () => {
  moto = await startMotoServer();
  sqs = new SQSClient(moto.clientConfig);
});
afterAll(async () => {
  sqs?.destroy();
  await moto?.close();
});
beforeEach(async () => {
  await moto.reset();
});

async function queue(name: string): Promise<{ url: string; arn: string; receive: () => Promise<string[]> }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return {
    url: QueueUrl!,
    arn: Attributes!.QueueArn!,
    receive: async () =>
      ((await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages ?? []).map((message) => message.Body!),
  };
}

describe('SQS adapters on moto', () => {
  it('puts a scan message on the scan queue as the body the dispatcher parses', async () => {
    const scans = await queue('scan-queue');
    const adapter = new SqsMessageQueue({ client: makeSqsClient(moto.clientConfig), queueUrl: scans.url });

    await adapter.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000000' });

    expect((await scans.receive()).map((body) => JSON.parse(body))).toEqual([
      { kind: 'scan', tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000000' },
    ]);
  });

  it("puts each message on its resource class's queue, and refuses a class without one (DESIGN §11)", async () => {
    const [standard, long] = [await queue('scan-queue-standard'), await queue('scan-queue-long')];
    const adapter = new SqsMessageQueue({
      client: makeSqsClient(moto.clientConfig),
      queueUrl: standard.url,
      classQueueUrls: { long: long.url },
    });
    const standardOnly = new SqsMessageQueue({ client: makeSqsClient(moto.clientConfig), queueUrl: standard.url });

    await adapter.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000001' }, 'long');
    await adapter.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000002' });
    await expect(standardOnly.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000003' }, 'long')).rejects.toThrow(
      new DispatchFailedError('no scan queue is configured for the long resource class'),
    );

    expect((await long.receive()).map((body) => JSON.parse(body).scan_id)).toEqual(['scan_01KB1V0T4K0000000000000001']);
    expect((await standard.receive()).map((body) => JSON.parse(body).scan_id)).toEqual(['scan_01KB1V0T4K0000000000000002']);
  });

  it('turns a refused send (no such queue) into DispatchFailedError', async () => {
    const adapter = new SqsMessageQueue({
      client: makeSqsClient(moto.clientConfig),
      queueUrl: `${moto.endpoint}/${moto.accountId}/no-such-queue`,
    });

    await expect(adapter.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000000' })).rejects.toBeInstanceOf(
      DispatchFailedError,
    );
  });

  it('puts a notification delivery back on the notification queue', async () => {
    const notifications = await queue('notifications');
    const adapter = makeSqsNotificationQueue(async () => sqs, notifications.url);
    const message = { kind: 'delivery', rule_id: 'nr_1', tenant: 'acme', event: scanFinishedEvent(1) } as const;

    await adapter.send(message);

    expect((await notifications.receive()).map((body) => JSON.parse(body))).toEqual([message]);
  });
});

describe('EventBridge publisher on moto', () => {
  it("publishes each event to the bus, where a rule on the service's source delivers its detail", async () => {
    const events = new EventBridgeClient(moto.clientConfig);
    const delivered = await queue('events');
    await events.send(new CreateEventBusCommand({ Name: 'scan-service-test' }));
    await events.send(
      new PutRuleCommand({ Name: 'all', EventBusName: 'scan-service-test', EventPattern: JSON.stringify({ source: [EVENT_SOURCE] }) }),
    );
    await events.send(
      new PutTargetsCommand({ Rule: 'all', EventBusName: 'scan-service-test', Targets: [{ Id: 'q', Arn: delivered.arn }] }),
    );
    const publisher = makeEventBridgePublisher({ busName: 'scan-service-test', client: async () => events, logger: silentLogger });

    await publisher.publish([scanFinishedEvent(1), scanFinishedEvent(2)]);

    const bodies = (await delivered.receive()).map(
      (body) => JSON.parse(body) as { source: string; 'detail-type': string; detail: unknown },
    );
    expect(bodies.map((body) => [body.source, body['detail-type'], body.detail]).sort()).toEqual([
      [EVENT_SOURCE, 'scan.finished', scanFinishedEvent(1)],
      [EVENT_SOURCE, 'scan.finished', scanFinishedEvent(2)],
    ]);
    events.destroy();
  });
});

describe('S3 artifact store on moto', () => {
  it('stores what is PUT to the presigned URL, reads it back bounded, copies it to a file and removes it', async () => {
    const client = makeS3Client({ ...moto.clientConfig, forcePathStyle: true });
    await client.send(
      new CreateBucketCommand({
        Bucket: 'artifacts',
        CreateBucketConfiguration: { LocationConstraint: moto.region as BucketLocationConstraint },
      }),
    );
    const store = makeS3ArtifactStore(client, 'artifacts');
    const body = Buffer.from('<feedback>report</feedback>');
    const id = 'art_01KB1V0T4K0000000000000000';
    const directory = await mkdtemp(join(tmpdir(), 'moto-s3-'));

    const upload = await store.uploadInstructions({ tenant: 'acme', id, size: body.length, contentType: 'application/xml' }, new Date());
    const put = await putUpload(upload.url, upload.headers, body);
    const firstBytes = await store.read('acme', id, 9);
    await store.fetchTo('acme', id, join(directory, 'copy'));
    const copied = await readFile(join(directory, 'copy'));
    await store.remove('acme', id);

    expect(put.status).toBe(200);
    expect(firstBytes).toEqual(body.subarray(0, 10));
    expect(copied).toEqual(body);
    expect(await store.read('acme', id, 100)).toBeNull();
    await rm(directory, { recursive: true, force: true });
    client.destroy();
  });
});

describe('SES email sender on moto', () => {
  it('sends from the verified sender, and SES refuses an unverified one', async () => {
    const ses = new SESv2Client(moto.clientConfig);
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: 'alerts@example.com' }));
    const message = { to: 'soc@acme.test', subject: 'scan finished', text: 'example.com: 0 new issues' };

    await makeSesEmailSender(async () => ses, 'alerts@example.com').send(message);
    const unverified = makeSesEmailSender(async () => ses, 'someone@else.test').send(message);

    await expect(unverified).rejects.toThrow();
    expect(await moto.sentEmails()).toEqual([
      expect.objectContaining({
        source: 'alerts@example.com',
        destinations: { ToAddresses: ['soc@acme.test'] },
        subject: 'scan finished',
        body: 'example.com: 0 new issues',
      }),
    ]);
    ses.destroy();
  });
});

describe('CloudWatch scan logs on moto', () => {
  it("reads a scan's lines back in order and drops other scans' and tenants' lines, which moto's filter lets through", async () => {
    const logs = new CloudWatchLogsClient(moto.clientConfig);
    const group = '/aws/lambda/dispatch';
    const scanId = 'scan_01KB1V0T4K0000000000000000';
    await logs.send(new CreateLogGroupCommand({ logGroupName: group }));
    await logs.send(new CreateLogStreamCommand({ logGroupName: group, logStreamName: 'instance-1' }));
    const started = Date.now();
    const line = (at: number, message: string, keys: Record<string, string>) => ({
      timestamp: started + at,
      message: JSON.stringify({ timestamp: new Date(started + at).toISOString(), level: 'INFO', message, ...keys }),
    });
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: group,
        logStreamName: 'instance-1',
        logEvents: [
          line(1, 'scan started', { tenant: 'acme', scan_id: scanId }),
          line(2, 'another scan', { tenant: 'acme', scan_id: 'scan_01KB1V0T4K0000000000000001' }),
          line(3, 'another tenant', { tenant: 'globex', scan_id: scanId }),
          line(4, 'scan finished', { tenant: 'acme', scan_id: scanId }),
        ],
      }),
    );
    const reader = makeCloudWatchScanLogs(group, new Logger({ logLevel: 'SILENT' }), async () => logs);

    const read = await reader.read('acme', scanId, 100);

    expect(read?.lines.map((entry) => entry.message)).toEqual(['scan started', 'scan finished']);
    logs.destroy();
  });
});

describe('Secrets Manager loaders on moto', () => {
  it('reads the session keys, current then previous after a rotation', async () => {
    const secrets = new SecretsManagerClient(moto.clientConfig);
    const { ARN } = await secrets.send(new CreateSecretCommand({ Name: 'session-key', SecretString: 'key-one' }));
    const before = await makeSessionKeysLoader(ARN!, secrets).keys();
    await secrets.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'key-two' }));

    const after = await makeSessionKeysLoader(ARN!, secrets).keys();

    expect(before).toEqual(['key-one']);
    expect(after).toEqual(['key-two', 'key-one']);
    secrets.destroy();
  });

  it('reads the operator keys and the legacy database URL', async () => {
    const secrets = new SecretsManagerClient(moto.clientConfig);
    await secrets.send(new CreateSecretCommand({ Name: 'operator-keys', SecretString: JSON.stringify({ MAILSCAN_HIBP_KEY: 'k' }) }));
    await secrets.send(
      new CreateSecretCommand({
        Name: 'legacy-db',
        SecretString: JSON.stringify({ username: 'u', password: 'p', host: 'db.internal', port: 5433, dbname: 'legacy' }),
      }),
    );

    const keys = await makeOperatorKeysLoader({ secretId: 'operator-keys', logger: silentLogger, client: secrets })();
    const url = await makeLegacyDatabaseUrlLoader('legacy-db', secrets)();

    expect(keys).toEqual({ MAILSCAN_HIBP_KEY: 'k' });
    expect(url).toBe('postgres://u:p@db.internal:5433/legacy');
    secrets.destroy();
  });
});
