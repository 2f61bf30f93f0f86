import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../local/dynalite.ts';
import { apiGatewayEvent, lambdaContext } from '../helpers/api-gateway-event.ts';

// A hung AWS call is cut off (docs/aws-timeouts.md): an endpoint that accepts connections and never
// answers stands in for EventBridge Scheduler and SQS; the API functions, as their composition
// roots build them, must answer 503 inside their Lambda timeouts and leave nothing half-written.

const SCHEDULES_TIMEOUT_MS = 10_000;
const SCANS_TIMEOUT_MS = 20_000;
const TENANT = 'acme';
const operator = {
  sub: 'user-1',
  tenant: TENANT,
  role: 'operator',
  via: 'bearer',
  expires_at: '2099-01-01T00:00:00.000Z',
  cursor_keys: 'k1',
};

/** Accepts every connection and never writes a byte. */
async function startBlackHole(): Promise<{ endpoint: string; connections: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => sockets.length,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let dynamo: LocalDynamo;
let hole: Awaited<ReturnType<typeof startBlackHole>>;
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
let schedules: Handler;
let scans: Handler;

beforeAll(async () => {
  dynamo = await startDynalite({ tableName: 'hung-calls' });
  hole = await startBlackHole();
  const arn = (service: string, name: string) => `arn:aws:${service}:eu-west-1:123456789012:${name}`;
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: hole.endpoint,
    AWS_ENDPOINT_URL_SQS: hole.endpoint,
    TABLE_NAME: 'hung-calls',
    SCHEDULE_GROUP_NAME: 'scan-service-test',
    SCAN_QUEUE_ARN: arn('sqs', 'scan-queue'),
    SCAN_QUEUE_URL: `${hole.endpoint}/123456789012/scan-queue`,
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
    SCHEDULER_DLQ_ARN: arn('sqs', 'fire-dlq'),
    DISPATCH_LOG_GROUP: '/aws/lambda/dispatch',
    ARTIFACT_BUCKET: 'artifacts',
    // Read at cold start only; neither request here touches the vault.
    CREDENTIAL_KEY_ARN: arn('kms', 'key/00000000-0000-0000-0000-000000000000'),
    LOG_LEVEL: 'SILENT',
  });
  schedules = (await import('../../functions/api/schedules.ts')).handler as unknown as Handler;
  scans = (await import('../../functions/api/scans.ts')).handler as unknown as Handler;
});

afterAll(async () => {
  await hole?.close();
  await dynamo?.close();
});

async function timed(call: () => Promise<{ statusCode: number; body?: string }>) {
  const started = performance.now();
  const result = await call();
  return { ms: Math.round(performance.now() - started), status: result.statusCode, body: JSON.parse(result.body ?? '{}') };
}

describe('an AWS endpoint that accepts and never answers', () => {
  it('makes a schedule create answer 503 trigger_unavailable inside the function timeout, with no row written', async () => {
    const schedule = { name: 'daily', scan_type: 'email_security', target: 'example.com', cadence: 'daily' };

    const created = await timed(() =>
      schedules(apiGatewayEvent('POST', '/api/scans/schedules/', { body: schedule, authorizer: operator }), lambdaContext('schedules')),
    );
    const listed = await timed(() =>
      schedules(apiGatewayEvent('GET', '/api/scans/schedules/', { authorizer: operator }), lambdaContext('schedules')),
    );

    console.info(`schedule create against a black-hole Scheduler: ${created.status} after ${created.ms} ms`);
    expect(created.status).toBe(503);
    expect(created.body.error.code).toBe('trigger_unavailable');
    expect(created.ms).toBeLessThan(SCHEDULES_TIMEOUT_MS);
    expect(hole.connections()).toBeGreaterThan(0);
    expect(listed.body.items).toEqual([]);
  });

  it('makes a manual scan answer 503 dispatch_failed inside the function timeout, its job failed rather than queued', async () => {
    const scan = { scan_type: 'email_security', target: 'example.com' };

    const started = await timed(() =>
      scans(apiGatewayEvent('POST', '/api/scans/', { body: scan, authorizer: operator }), lambdaContext('scans')),
    );
    const listed = await timed(() => scans(apiGatewayEvent('GET', '/api/scans/', { authorizer: operator }), lambdaContext('scans')));

    console.info(`manual scan against a black-hole SQS: ${started.status} after ${started.ms} ms`);
    expect(started.status).toBe(503);
    expect(started.body.error.code).toBe('dispatch_failed');
    expect(started.ms).toBeLessThan(SCANS_TIMEOUT_MS);
    expect(listed.body.items.map((job: { status: string }) => job.status)).not.toContain('queued');
  });
});
