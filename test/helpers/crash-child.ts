import { createInterface } from 'node:readline';
import { startLocalRuntime } from '../../local/runtime.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { SESSION_KEY } from './local-service.ts';
import { ScriptedRunner, finding } from './test-runners.ts';

// A local runtime on a data directory, in a process of its own that a test kills with SIGKILL
// (test/integration/crash-recovery.test.ts). Arguments: the data directory, the clock's start
// (ISO), the quota. Commands arrive on stdin as JSON lines; each answer is one JSON line on stdout:
//   {"cmd":"arm","k":3}  SIGKILL itself right after the 3rd DynamoDB call from now succeeds
//   {"cmd":"advance","ms":N}  move the clock, then run what is due: fires, the queue, the DLQ
//   {"cmd":"state","tenant":"t"}  the tenant's rows, jobs, findings and quota count, from the store
const [dataDir, start, quota] = process.argv.slice(2);
export const FINDINGS_PER_SCAN = 30;

let killAfter = 0;
let calls = 0;
const clock = new ManualClock(start);
const runner = new ScriptedRunner();
runner.behaviour = async () => ({ findings: Array.from({ length: FINDINGS_PER_SCAN }, (_, i) => finding(i, { evidence: { i } })) });
const runtime = await startLocalRuntime({
  dataDir,
  clock,
  quota: Number(quota),
  sessionKey: SESSION_KEY,
  logger: silentLogger,
  runners: new Map([['email_security', runner]]),
  afterDynamoCall: () => {
    if (killAfter === 0) return;
    calls += 1;
    // Right after the call's answer: the write is in the store, nothing after it ran.
    if (calls === killAfter) process.kill(process.pid, 'SIGKILL');
  },
});

async function state(tenant: string) {
  const rows = [];
  for await (const row of runtime.repo.listAll(tenant)) rows.push(row);
  const jobs = [];
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await runtime.scans.list(tenant, {}, 200, cursor);
    jobs.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  }
  const findings = [];
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await runtime.findings.list(tenant, {}, 200, cursor);
    findings.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  }
  return {
    now: clock.now().toISOString(),
    count: await runtime.repo.count(tenant),
    rows: rows.map(({ id, last_run_status, last_scan_id, last_run_at }) => ({ id, last_run_status, last_scan_id, last_run_at })),
    jobs: jobs.map(({ id, schedule_id, status, trigger, scheduled_time, finding_count }) => ({
      id,
      schedule_id,
      status,
      trigger,
      scheduled_time,
      finding_count,
    })),
    findings: findings.map(({ id, scan_id }) => ({ id, scan_id })),
  };
}

process.stdout.write(`${JSON.stringify({ url: runtime.url, requeued: runtime.requeued, recovered: runtime.recovered })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { cmd: string; k?: number; ms?: number; tenant?: string };
  if (command.cmd === 'arm') {
    calls = 0;
    killAfter = command.k!;
    process.stdout.write(`${JSON.stringify({ armed: killAfter })}\n`);
  } else if (command.cmd === 'advance') {
    clock.advance(command.ms!);
    await runtime.drain();
    process.stdout.write(`${JSON.stringify({ advanced: clock.now().toISOString() })}\n`);
  } else if (command.cmd === 'disarm') {
    killAfter = 0;
    process.stdout.write(`${JSON.stringify({ disarmed: true })}\n`);
  } else if (command.cmd === 'state') {
    process.stdout.write(`${JSON.stringify(await state(command.tenant!))}\n`);
  }
}
await runtime.stop();
