import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { signSessionToken } from '../shared/auth/session-token.ts';
import { LOCAL_TABLE_NAME, startLocalRuntime } from '../local/runtime.ts';
import { ms, percentile, timed } from './stats.ts';
import { silentLogger } from '../test/fakes/silent-logger.ts';

// npm run bench:api [-- SCHEDULES]: local mode (dynalite on disk, local scheduler), one tenant with
// 10,000 schedules; latency of create, get and list (page of 50) through the HTTP API, beside a
// bare GetItem/Query on the same dynalite in the same run.
const total = Number(process.argv[2] ?? 10_000);
const samples = 1_000;

const dataDir = await mkdtemp(join(tmpdir(), 'bench-api-'));
const runtime = await startLocalRuntime({ dataDir, quota: total + 1, logger: silentLogger });
const token = await signSessionToken({ sub: 'bench', tenant: 'bench', role: 'admin' }, runtime.sessionKey);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function call(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${runtime.url}${path}`, { ...init, headers });
  const body = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${body}`);
  return body ? JSON.parse(body) : undefined;
}

const ids: string[] = [];
const create: number[] = [];
const started = performance.now();
for (let i = 0; i < total; i += 1) {
  const body = JSON.stringify({
    name: `bench ${i}`,
    scan_type: 'email_security',
    target: `site${i}.com`,
    cadence: 'custom',
    cron_expression: `${i % 60} */6 * * *`,
  });
  create.push(await timed(async () => ids.push((await call('/api/scans/schedules/', { method: 'POST', body })).id)));
  if ((i + 1) % 2_000 === 0) process.stderr.write(`created ${i + 1}/${total}\n`);
}
const createSeconds = (performance.now() - started) / 1000;

const pick = () => ids[Math.floor(Math.random() * ids.length)];
const get: number[] = [];
for (let i = 0; i < samples; i += 1) get.push(await timed(() => call(`/api/scans/schedules/${pick()}/`)));

const list: number[] = [];
let cursor: string | null = null;
// Walks the listing page after page (a new walk starts when one ends): every page is a full 50.
for (let i = 0; i < samples / 2; i += 1) {
  list.push(
    await timed(async () => {
      const page: { items: unknown[]; next_cursor: string | null } = await call(
        `/api/scans/schedules/?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (page.items.length !== Math.min(50, total)) throw new Error(`short page: ${page.items.length}`);
      cursor = page.next_cursor;
    }),
  );
}

const client = makeDocumentClient({
  endpoint: runtime.dynamoEndpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const bareGet: number[] = [];
for (let i = 0; i < samples; i += 1) {
  bareGet.push(
    await timed(() => client.send(new GetCommand({ TableName: LOCAL_TABLE_NAME, Key: { PK: 'T#bench', SK: `SCH#${pick()}` } }))),
  );
}
const bareQuery: number[] = [];
let startKey: Record<string, unknown> | undefined;
for (let i = 0; i < samples / 2; i += 1) {
  bareQuery.push(
    await timed(async () => {
      const page = await client.send(
        new QueryCommand({
          TableName: LOCAL_TABLE_NAME,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sch)',
          ExpressionAttributeValues: { ':pk': 'T#bench', ':sch': 'SCH#' },
          ScanIndexForward: false,
          Limit: 50,
          ExclusiveStartKey: startKey,
        }),
      );
      startKey = page.LastEvaluatedKey;
    }),
  );
}
const barePut: number[] = [];
for (let i = 0; i < samples; i += 1) {
  barePut.push(
    await timed(() =>
      client.send(
        new PutCommand({
          TableName: LOCAL_TABLE_NAME,
          Item: { PK: 'T#bench-bare', SK: `SCH#bare${i}`, name: `bare ${i}`, target: `site${i}.com` },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    ),
  );
}
client.destroy();
await runtime.stop();
await rm(dataDir, { recursive: true, force: true });

const p50 = (values: number[]) => percentile(values, 50);
const rows = [
  ['create', create, barePut],
  ['get', get, bareGet],
  ['list (50)', list, bareQuery],
] as const;
console.log(`bench:api — ${total} schedules in one tenant, local mode (dynalite on disk), Node ${process.version}`);
console.log(`created ${total} in ${createSeconds.toFixed(1)} s (${(total / createSeconds).toFixed(0)} creates/s, sequential)`);
console.log('operation   p50        p99        bare DynamoDB p50   ratio p50/bare');
for (const [name, values, bare] of rows) {
  const ratio = bare ? `${(p50(values) / p50(bare)).toFixed(1)}x` : '-';
  const bareText = bare ? ms(p50(bare)) : '-';
  console.log(`${name.padEnd(11)} ${ms(p50(values)).padEnd(10)} ${ms(percentile(values, 99)).padEnd(10)} ${bareText.padEnd(19)} ${ratio}`);
}
console.log('bare: conditional PutItem / GetItem / Query(Limit 50) with the same document client against the same dynalite.');
console.log('create does 3 DynamoDB calls (quota read, counter update, conditional put) plus the trigger sync.');
