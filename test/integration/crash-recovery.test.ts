import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../shared/auth/session-token.ts';
import { SESSION_KEY, scheduleBody } from '../helpers/local-service.ts';
import { bundleForNode, type NodeBundle } from '../helpers/node-bundle.ts';

const HOUR = 3_600_000;
const QUOTA = 3;
const FINDINGS_PER_SCAN = 30;
const CHILD = new URL('../helpers/crash-child.ts', import.meta.url).pathname;
/** crash-child.ts bundled once for the file: each test starts it again after every kill, dozens of times. */
let childBundle: NodeBundle;

interface State {
  now: string;
  count: number;
  rows: { id: string; last_run_status: string; last_scan_id: string | null }[];
  jobs: { id: string; schedule_id: string | null; status: string; scheduled_time: string | null; finding_count: number }[];
  findings: { id: string; scan_id: string }[];
}

/** A local runtime in a process of its own (test/helpers/crash-child.ts), which may SIGKILL itself. */
class Child {
  readonly #process: ChildProcessWithoutNullStreams;
  readonly #lines: AsyncIterator<string>;
  readonly exited: Promise<string>;
  url = '';

  constructor(dataDir: string, now: string) {
    this.#process = spawn(process.execPath, [childBundle.file, dataDir, now, String(QUOTA)], { stdio: 'pipe' });
    this.#process.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    // Writing to a child that just died: its death is what the test reads from `exited`.
    this.#process.stdin.on('error', () => undefined);
    this.#lines = createInterface({ input: this.#process.stdout })[Symbol.asyncIterator]();
    this.exited = new Promise((resolve) => this.#process.on('exit', (code, signal) => resolve(signal ?? String(code))));
  }

  static async start(dataDir: string, now: string): Promise<Child> {
    const child = new Child(dataDir, now);
    child.url = ((await child.#next()) as { url: string }).url;
    return child;
  }

  /** The next line the child writes, or null once it died. */
  async #next(): Promise<unknown> {
    const line = await Promise.race([this.#lines.next(), this.exited.then(() => ({ done: true, value: '' }))]);
    return line.done ? null : JSON.parse(line.value);
  }

  /** Sends one command; null when the child died before answering. */
  async send(command: Record<string, unknown>): Promise<unknown> {
    this.#process.stdin.write(`${JSON.stringify(command)}\n`);
    return this.#next();
  }

  async api(token: string, path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any } | null> {
    try {
      const response = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    } catch {
      // The process died with the request in flight: the client got no answer.
      return null;
    }
  }

  async stop(): Promise<void> {
    this.#process.stdin.end();
    await this.exited;
  }
}

/** Every schedule agrees with its newest job, every job finished once, no finding twice, the quota counts the rows. */
function expectCoherent(state: State, label: string): void {
  expect(
    state.jobs.every((job) => job.status === 'succeeded' && job.finding_count === FINDINGS_PER_SCAN),
    label,
  ).toBe(true);
  expect(state.findings, label).toHaveLength(FINDINGS_PER_SCAN * state.jobs.length);
  expect(new Set(state.findings.map((item) => item.id)).size, label).toBe(state.findings.length);
  for (const row of state.rows) {
    const newest = state.jobs.filter((job) => job.schedule_id === row.id).sort((a, b) => (a.id < b.id ? 1 : -1))[0];
    const expected = newest
      ? { last_scan_id: newest.id, last_run_status: 'success' }
      : { last_scan_id: null, last_run_status: 'never_run' };
    expect({ label, last_scan_id: row.last_scan_id, last_run_status: row.last_run_status }).toEqual({ label, ...expected });
  }
  expect({ label, count: state.count }).toEqual({ label, count: state.rows.length });
}

type Operation = 'create' | 'run now' | 'fire';

describe('a process killed after each DynamoDB call of an operation, then restarted on its data', () => {
  let dataDir = '';
  let child: Child | null = null;

  beforeAll(async () => {
    childBundle = await bundleForNode(CHILD);
  });

  afterAll(async () => {
    await childBundle?.remove();
  });

  afterEach(async () => {
    await child?.stop();
    child = null;
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each<Operation>(['create', 'run now', 'fire'])(
    'ends coherent with zero quota drift wherever a %s dies',
    async (operation) => {
      dataDir = await mkdtemp(join(tmpdir(), 'crash-recovery-'));
      let now = Date.parse('2026-03-02T10:00:00Z');
      child = await Child.start(dataDir, new Date(now).toISOString());
      const outcomes: string[] = [];
      // Step k: the process dies right after the k-th DynamoDB call of the operation succeeds. Stop
      // once the operation ran to its end without meeting its kill: every step boundary was tried.
      for (let k = 1; k < 60; k += 1) {
        const tenant = `${operation.replace(' ', '-')}-${k}`;
        const token = await signSessionToken({ sub: 'crash', tenant, role: 'admin' }, SESSION_KEY);
        const existing = await child.api(
          token,
          '/api/scans/schedules/',
          'POST',
          scheduleBody({ cadence: 'custom', cron_expression: '0 */6 * * *' }),
        );
        expect(existing?.status).toBe(201);

        await child.send({ cmd: 'arm', k });
        let answer: { status: number } | null | undefined;
        if (operation === 'create') answer = await child.api(token, '/api/scans/schedules/', 'POST', scheduleBody());
        if (operation === 'run now') {
          answer = await child.api(token, `/api/scans/schedules/${existing!.body.id}/run/`, 'POST');
          if (answer) await child.send({ cmd: 'advance', ms: 1000 });
        }
        if (operation === 'fire') await child.send({ cmd: 'advance', ms: 6 * HOUR });
        now += operation === 'fire' ? 6 * HOUR : 1000;
        const killed = (await child.send({ cmd: 'disarm' })) === null;

        if (killed) {
          // Past the reservation of a create that died (RESERVATION_MS), before the next fire.
          now += 2 * 60_000;
          child = await Child.start(dataDir, new Date(now).toISOString());
        }
        await child.send({ cmd: 'advance', ms: 1000 });
        now += 1000;
        const state = (await child.send({ cmd: 'state', tenant })) as State;
        outcomes.push(
          `k=${k}: ${killed ? 'killed' : 'completed'}, answer ${answer?.status ?? 'none'}, ${state.rows.length} row(s), ${state.jobs.length} job(s)`,
        );
        const label = outcomes.at(-1)!;

        expectCoherent(state, label);
        if (operation === 'fire') expect(state.jobs, label).toHaveLength(1);
        if (operation === 'run now') expect(state.jobs.length, label).toBeLessThanOrEqual(1);
        if (operation === 'create') {
          // Zero drift in practice: exactly the free slots can be filled, then 409.
          const free = QUOTA - state.rows.length;
          const fills = [];
          for (let i = 0; i <= free; i += 1) fills.push((await child.api(token, '/api/scans/schedules/', 'POST', scheduleBody()))?.status);
          expect({ label, fills }).toEqual({ label, fills: [...Array.from({ length: free }, () => 201), 409] });
        }
        // Only this iteration's schedules may fire in the next one.
        for (const row of ((await child.api(token, '/api/scans/schedules/?limit=200'))?.body.items ?? []) as { id: string }[])
          await child.api(token, `/api/scans/schedules/${row.id}/`, 'DELETE');
        if (!killed) break;
      }
      expect(outcomes.at(-1), outcomes.join('\n')).toContain('completed');
      expect(outcomes.length, outcomes.join('\n')).toBeGreaterThan(3);
    },
    600_000,
  );
});
