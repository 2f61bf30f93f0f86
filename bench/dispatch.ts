import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../test/fakes/manual-clock.ts';
import type { ScanRunner } from '../shared/ports/scan-runner.ts';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { DEFAULT_DISPATCH_CONCURRENCY, LOCAL_TABLE_NAME, startLocalRuntime } from '../local/runtime.ts';
import { startDynalite } from '../local/dynalite.ts';
import { silentLogger } from '../test/fakes/silent-logger.ts';
import { formatSpread, pairedRatios } from './paired.ts';

// npm run bench:dispatch [-- SCHEDULES]: local mode (dynalite on disk, local scheduler, queue and
// consumer) with a runner that returns 20 findings instantly. All schedules fire in the same
// minute (the 02:00 burst in miniature); prints fires per second end to end (fire message → ScanJob
// → findings → schedule status) and DynamoDB requests per fire by command. The ceiling: the last
// round's DynamoDB calls, recorded as sent, replayed straight at a fresh dynalite on disk with the
// consumer's concurrency; fires/s ÷ ceiling is how much of dynalite's speed the service keeps.
// Every round is followed by the replay of its own calls (service, replay, service, replay ...), so
// the ratio is paired round by round; printed as median (min–max) over the rounds.
const schedules = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 5);

const runner: ScanRunner = {
  name: 'bench',
  run: async ({ target }) => ({
    findings: Array.from({ length: 20 }, (_, i) => ({
      rule_id: `bench.rule_${i}`,
      severity: 'low' as const,
      title: `finding ${i}`,
      description: 'benchmark',
      evidence: { i, target },
      remediation: 'none',
    })),
  }),
};

const dataDir = await mkdtemp(join(tmpdir(), 'bench-dispatch-'));
const clock = new ManualClock('2026-03-02T10:00:30Z');
let recording: { command: string; input: unknown }[] | null = null;
const runtime = await startLocalRuntime({
  dataDir,
  clock,
  quota: schedules + 1,
  runners: new Map([['email_security', runner]]),
  logger: silentLogger,
  afterDynamoCall: (command, input) => recording?.push({ command, input: structuredClone(input) }),
});
for (let i = 0; i < schedules; i += 1) {
  await runtime.schedules.create('bench', {
    name: `b${i}`,
    scan_type: 'email_security',
    target: `site${i}.com`,
    cadence: 'custom',
    cron_expression: '*/5 * * * *',
  });
}

// The same calls, issued directly at a fresh dynalite on disk by as many workers as the consumer has.
// The recorder sees the document-level input (before marshalling), so the replay uses the same layer.
const commands: Record<string, new (input: any) => any> = {
  GetItemCommand: GetCommand,
  PutItemCommand: PutCommand,
  UpdateItemCommand: UpdateCommand,
  BatchGetItemCommand: BatchGetCommand,
  BatchWriteItemCommand: BatchWriteCommand,
  QueryCommand,
};
async function replaySeconds(calls: { command: string; input: unknown }[]): Promise<number> {
  const ceilingDir = await mkdtemp(join(tmpdir(), 'bench-dispatch-ceiling-'));
  const bare = await startDynalite({ path: join(ceilingDir, 'dynamodb'), tableName: LOCAL_TABLE_NAME });
  const client = makeDocumentClient(bare.clientConfig);
  let nextCall = 0;
  const replayStarted = performance.now();
  await Promise.all(
    Array.from({ length: DEFAULT_DISPATCH_CONCURRENCY }, async () => {
      while (nextCall < calls.length) {
        const { command, input } = calls[nextCall++];
        const Command = commands[command];
        if (!Command) throw new Error(`no replay for ${command}`);
        // A conditional write that fails here fails as it would have: the work is the same.
        await client.send(new Command(input)).catch((error: { name?: string }) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        });
      }
    }),
  );
  const seconds = (performance.now() - replayStarted) / 1000;
  client.destroy();
  await bare.close();
  await rm(ceilingDir, { recursive: true, force: true });
  return seconds;
}

const results: { fires: number; seconds: number; requests: Map<string, number>; calls: number; ceilingSeconds: number }[] = [];
for (let round = 0; round < rounds; round += 1) {
  clock.advance(5 * 60_000);
  runtime.dynamoRequests.clear();
  recording = [];
  const started = performance.now();
  const fires = (await runtime.scheduler.runDue()).length;
  await runtime.consumer.drain();
  const seconds = (performance.now() - started) / 1000;
  const calls = recording;
  recording = null;
  results.push({
    fires,
    seconds,
    requests: new Map(runtime.dynamoRequests),
    calls: calls.length,
    ceilingSeconds: await replaySeconds(calls),
  });
}
const jobs = await runtime.scans.list('bench', { status: 'succeeded' }, 200);
// Coherence after the burst: every schedule shows success, and its last scan is a succeeded job.
let coherent = 0;
for await (const schedule of runtime.repo.listAll('bench')) {
  const scan = schedule.last_scan_id ? await runtime.scans.get('bench', schedule.last_scan_id) : null;
  if (schedule.last_run_status === 'success' && scan?.status === 'succeeded') coherent += 1;
}
await runtime.stop();
await rm(dataDir, { recursive: true, force: true });

console.log(
  `bench:dispatch — ${schedules} schedules firing together, runner returns 20 findings, local mode, Node ${process.version}, ${rounds} rounds each followed by its replay`,
);
const fireRates = results.map(({ fires, seconds }) => fires / seconds);
const ceilings = results.map(({ fires, ceilingSeconds }) => fires / ceilingSeconds);
for (const [index, { fires, seconds, calls, ceilingSeconds }] of results.entries()) {
  console.log(
    `round ${index + 1}: ${fires} fires in ${seconds.toFixed(2)} s = ${(fires / seconds).toFixed(1)} fires/s; its ${calls} calls replayed with ${DEFAULT_DISPATCH_CONCURRENCY} workers in ${ceilingSeconds.toFixed(2)} s = ${(fires / ceilingSeconds).toFixed(1)} fires/s`,
  );
}
const last = results[results.length - 1];
const total = [...last.requests.values()].reduce((sum, n) => sum + n, 0);
console.log(
  `DynamoDB requests per fire (last round): ${(total / last.fires).toFixed(1)} (${[...last.requests].map(([command, n]) => `${command.replace('Command', '')} ${(n / last.fires).toFixed(1)}`).join(', ')})`,
);
console.log(`fires/s end to end: ${formatSpread(fireRates, '', 1)}; bare dynalite ceiling: ${formatSpread(ceilings, '', 1)}`);
console.log(`fires/s ÷ ceiling, paired per round: ${formatSpread(pairedRatios(fireRates, ceilings), '', 2)}`);
console.log(`schedules coherent after the last round: ${coherent}/${schedules}`);
console.log(`sanity: ${jobs.items.length >= Math.min(200, schedules) ? 'jobs succeeded' : 'MISSING JOBS'}`);
