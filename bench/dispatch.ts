import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../shared/ports/clock.ts';
import type { ScanRunner } from '../shared/ports/scan-runner.ts';
import { startLocalRuntime } from '../local/runtime.ts';

// npm run bench:dispatch [-- SCHEDULES]: local mode (dynalite on disk, local scheduler, queue and
// consumer) with a runner that returns 20 findings instantly. All schedules fire in the same
// minute (the 02:00 burst in miniature); prints fires per second end to end (fire message → ScanJob
// → findings → schedule status) and DynamoDB requests per fire by command.
const schedules = Number(process.argv[2] ?? 300);
const rounds = 3;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const runner: ScanRunner = {
  name: 'bench',
  run: async ({ target }) => ({
    findings: Array.from({ length: 20 }, (_, i) => ({
      rule_id: `bench.rule_${i}`, severity: 'low' as const, title: `finding ${i}`, description: 'benchmark', evidence: { i, target }, remediation: 'none',
    })),
  }),
};

const dataDir = await mkdtemp(join(tmpdir(), 'bench-dispatch-'));
const clock = new ManualClock('2026-03-02T10:00:30Z');
const runtime = await startLocalRuntime({ dataDir, clock, quota: schedules + 1, runners: new Map([['email_security', runner]]), logger: silent });
for (let i = 0; i < schedules; i += 1) {
  await runtime.schedules.create('bench', { name: `b${i}`, scan_type: 'email_security', target: `site${i}.com`, cadence: 'custom', cron_expression: '*/5 * * * *' });
}

const results: { fires: number; seconds: number; requests: Map<string, number> }[] = [];
for (let round = 0; round < rounds; round += 1) {
  clock.advance(5 * 60_000);
  runtime.dynamoRequests.clear();
  const started = performance.now();
  const fires = (await runtime.scheduler.runDue()).length;
  await runtime.consumer.drain();
  const seconds = (performance.now() - started) / 1000;
  results.push({ fires, seconds, requests: new Map(runtime.dynamoRequests) });
}
const jobs = await runtime.scans.list('bench', { status: 'succeeded' }, 200);
await runtime.stop();
await rm(dataDir, { recursive: true, force: true });

console.log(`bench:dispatch — ${schedules} schedules firing together, runner returns 20 findings, local mode, Node ${process.version}`);
for (const [index, { fires, seconds }] of results.entries()) {
  console.log(`round ${index + 1}: ${fires} fires in ${seconds.toFixed(2)} s = ${(fires / seconds).toFixed(1)} fires/s end to end`);
}
const last = results[results.length - 1];
const total = [...last.requests.values()].reduce((sum, n) => sum + n, 0);
console.log(`DynamoDB requests per fire: ${(total / last.fires).toFixed(1)} (${[...last.requests].map(([command, n]) => `${command.replace('Command', '')} ${(n / last.fires).toFixed(1)}`).join(', ')})`);
console.log(`sanity: ${jobs.items.length >= Math.min(200, schedules) ? 'jobs succeeded' : 'MISSING JOBS'}`);
