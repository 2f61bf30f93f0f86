import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { signSessionToken } from '../shared/auth/session-token.ts';
import { LOCAL_TABLE_NAME, startLocalRuntime } from '../local/runtime.ts';
import { formatSpread, pairedRatios } from './paired.ts';
import { ms, percentile, timed } from './stats.ts';
import { silentLogger } from '../test/fakes/silent-logger.ts';
import type { ScanRunner } from '../shared/ports/scan-runner.ts';

// npm run bench:api [-- SCHEDULES]: local mode (dynalite on disk, local scheduler), one tenant with
// 10,000 schedules; latency of create, get and list (page of 50) through the HTTP API, each call
// paired with the bare DynamoDB call it rests on (conditional PutItem, GetItem, Query Limit 50) on
// the same dynalite, the two in turn (API, bare, API, bare ...), so the ratio API ÷ bare is taken
// pair by pair while the machine's speed drifts; printed as median (min–max).
const total = Number(process.argv[2] ?? 10_000);
const samples = 1_000;

const dataDir = await mkdtemp(join(tmpdir(), 'bench-api-'));
// A runner that is never called (nothing fires here): it makes email_security a type with a runner,
// so creates do not depend on a built mailscan.
const runner: ScanRunner = { name: 'bench', run: async () => ({ findings: [] }) };
const runtime = await startLocalRuntime({
  dataDir,
  quota: total + 1,
  logger: silentLogger,
  runners: new Map([['email_security', runner]]),
});
const token = await signSessionToken({ sub: 'bench', tenant: 'bench', role: 'admin' }, runtime.sessionKey);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function call(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${runtime.url}${path}`, { ...init, headers });
  const body = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${body}`);
  return body ? JSON.parse(body) : undefined;
}

const client = makeDocumentClient({
  endpoint: runtime.dynamoEndpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

const ids: string[] = [];
const create: number[] = [];
const barePut: number[] = [];
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
  if ((i + 1) % 2_000 === 0) process.stderr.write(`created ${i + 1}/${total}\n`);
}
const createSeconds = (performance.now() - started) / 1000;

const pick = () => ids[Math.floor(Math.random() * ids.length)];
const get: number[] = [];
const bareGet: number[] = [];
for (let i = 0; i < samples; i += 1) {
  const id = pick();
  get.push(await timed(() => call(`/api/scans/schedules/${id}/`)));
  bareGet.push(await timed(() => client.send(new GetCommand({ TableName: LOCAL_TABLE_NAME, Key: { PK: 'T#bench', SK: `SCH#${id}` } }))));
}

const list: number[] = [];
const bareQuery: number[] = [];
let cursor: string | null = null;
let startKey: Record<string, unknown> | undefined;
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
client.destroy();
await runtime.stop();
await rm(dataDir, { recursive: true, force: true });

const rows = [
  ['create', create, barePut],
  ['get', get, bareGet],
  ['list (50)', list, bareQuery],
] as const;
console.log(`bench:api — ${total} schedules in one tenant, local mode (dynalite on disk), Node ${process.version}`);
console.log(
  `created ${total} in ${createSeconds.toFixed(1)} s (${(total / createSeconds).toFixed(0)} creates/s, sequential, each followed by its bare put)`,
);
console.log('| operation | API median (min–max) | API p99 | bare DynamoDB median (min–max) | API ÷ bare, paired: median (min–max) |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, values, bare] of rows) {
  console.log(
    `| ${name} | ${formatSpread(values, ' ms', 2)} | ${ms(percentile(values, 99))} | ${formatSpread(bare, ' ms', 2)} | ${formatSpread(pairedRatios(values, bare), '', 1)} |`,
  );
}
console.log(
  'bare: conditional PutItem / GetItem / Query(Limit 50) with the same document client against the same dynalite, each run right after its API call.',
);
console.log('create does 3 DynamoDB calls (quota read, counter update, conditional put) plus the trigger sync.');
