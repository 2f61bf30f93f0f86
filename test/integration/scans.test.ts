import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QueueMessage } from '../../shared/domain/messages.ts';
import type { FindingRepository } from '../../shared/ports/finding-repository.ts';
import type { ScanRunner } from '../../shared/ports/scan-runner.ts';
import { freshTenant, scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

const MINUTE = 60_000;

/**
 * Each test has a tenant of its own and leaves its schedules as they are: the schedules of earlier
 * tests go on firing, and their jobs get an empty result without reaching this test's runner.
 */
function forTenantOnly(runner: ScriptedRunner, tenant: () => string): ScanRunner {
  return { name: runner.name, run: (input) => (input.tenant === tenant() ? runner.run(input) : Promise.resolve({ findings: [] })) };
}

describe('scans end to end under a fake clock', () => {
  let service: TestService;
  let runner: ScriptedRunner;
  let tenant: string;
  let token: string;

  beforeAll(async () => {
    runner = new ScriptedRunner();
    service = await startTestService({
      runners: new Map([
        ['email_security', forTenantOnly(runner, () => tenant)],
        ['ssl', forTenantOnly(runner, () => tenant)],
      ]),
    });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    runner.calls = [];
    tenant = freshTenant('acme');
    token = await service.token(tenant, 'operator');
  });

  async function customSchedule(): Promise<string> {
    const reply = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ cadence: 'custom', cron_expression: '*/5 * * * *' }),
    });
    return reply.body.id;
  }

  async function fireOnce(): Promise<void> {
    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
  }

  it('fires a */5 schedule, runs the job through the registered runner, stores findings, and moves never_run → running → success', async () => {
    const id = await customSchedule();
    const before = await service.call(`/api/scans/schedules/${id}/`, { token });
    const seenWhileRunning: string[] = [];
    runner.behaviour = async () => {
      seenWhileRunning.push((await service.call(`/api/scans/schedules/${id}/`, { token })).body.last_run_status);
      return { findings: [finding(1), finding(2), finding(3)], summary: { score: 81, grade: 'B' } };
    };

    await fireOnce();

    const after = (await service.call(`/api/scans/schedules/${id}/`, { token })).body;
    const scan = (await service.call(`/api/scans/${after.last_scan_id}/`, { token })).body;
    const found = (await service.call(`/api/findings/?scan_id=${scan.id}`, { token })).body.items;
    expect(before.body.last_run_status).toBe('never_run');
    expect(seenWhileRunning).toEqual(['running']);
    expect(after.last_run_status).toBe('success');
    expect(after.last_run_at).toBe(scan.created_at);
    expect(scan).toMatchObject({
      status: 'succeeded',
      source_type: 'schedule',
      trigger: 'cron',
      schedule_id: id,
      finding_count: 3,
      summary: { high: 1, medium: 1, low: 1, critical: 0, info: 0, score: 81, grade: 'B' },
      errors: [],
    });
    expect(scan.scheduled_time).toMatch(/:00Z$/);
    expect(scan.log.file).toContain(scan.id);
    expect(found).toHaveLength(3);
    expect(found[0]).toMatchObject({ scan_id: scan.id, schedule_id: id, scan_type: 'email_security', target: 'example.com' });
    expect(runner.calls).toHaveLength(1);
  });

  it('ends failed when the runner errors, with the reason in errors and the scan log', async () => {
    const id = await customSchedule();
    runner.behaviour = async () => {
      throw new Error('resolver exploded');
    };

    await fireOnce();

    const schedule = (await service.call(`/api/scans/schedules/${id}/`, { token })).body;
    const scan = (await service.call(`/api/scans/${schedule.last_scan_id}/`, { token })).body;
    expect(schedule.last_run_status).toBe('failed');
    expect(scan).toMatchObject({
      status: 'failed',
      finding_count: 0,
      errors: [{ runner: 'scripted', message: 'example.com: resolver exploded' }],
    });
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(scan.log.file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.every((line) => line.tenant === tenant && line.scan_id === scan.id && line.schedule_id === id)).toBe(true);
    expect(lines.some((line) => line.level === 'WARN' && JSON.stringify(line).includes('resolver exploded'))).toBe(true);
  });

  it('ends partial when the runner errors after returning findings', async () => {
    const id = await customSchedule();
    runner.behaviour = async () => ({ findings: [finding(4)], errors: ['block-list zen timed out'] });

    await fireOnce();

    const schedule = (await service.call(`/api/scans/schedules/${id}/`, { token })).body;
    const scan = (await service.call(`/api/scans/${schedule.last_scan_id}/`, { token })).body;
    expect(schedule.last_run_status).toBe('partial');
    expect(scan).toMatchObject({
      status: 'partial',
      finding_count: 1,
      errors: [{ runner: 'scripted', message: 'example.com: block-list zen timed out' }],
    });
  });

  it('keeps first_seen_at and moves last_seen_at when a later scan sees the same finding', async () => {
    runner.behaviour = async () => ({ findings: [finding(7)] });
    const first = (await service.call('/api/scans/', { method: 'POST', token, body: { scan_type: 'email_security', target: 'seen.com' } }))
      .body;
    await service.runtime.drain();
    service.clock.advance(60 * MINUTE);
    const second = (await service.call('/api/scans/', { method: 'POST', token, body: { scan_type: 'email_security', target: 'seen.com' } }))
      .body;
    await service.runtime.drain();

    const a = (await service.call(`/api/findings/?scan_id=${first.id}`, { token })).body.items[0];
    const b = (await service.call(`/api/findings/?scan_id=${second.id}`, { token })).body.items[0];

    expect(b.fingerprint).toBe(a.fingerprint);
    expect(b.first_seen_at).toBe(a.first_seen_at);
    expect(Date.parse(b.last_seen_at) - Date.parse(a.last_seen_at)).toBe(60 * MINUTE);
  });

  it('runs a manual scan over the target and every entry of targets, with 202 and Location', async () => {
    runner.behaviour = async (input) => ({ findings: [finding(1, { evidence: { host: input.target } })] });

    const reply = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'email_security', target: 'one.com', targets: ['two.com', 'three.com'], scope: { reputation: false } },
    });
    await service.runtime.drain();
    const scan = (await service.call(`/api/scans/${reply.body.id}/`, { token })).body;

    expect(reply.status).toBe(202);
    expect(reply.headers.get('location')).toBe(`/api/scans/${reply.body.id}/`);
    expect(reply.body).toMatchObject({ status: 'queued', source_type: 'manual', trigger: 'manual', schedule_id: null });
    expect(runner.calls.map((call) => call.target)).toEqual(['one.com', 'two.com', 'three.com']);
    expect(runner.calls[0].scope).toEqual({ reputation: false });
    expect(scan).toMatchObject({ status: 'succeeded', finding_count: 3 });
  });

  it('stores every check of every target on the finished job, in target order, and none while it is queued', async () => {
    runner.behaviour = async (input) => ({
      findings: input.target === 'two.com' ? [finding(0)] : [],
      checks: [
        { id: 'test.rule_0', title: 'Rule 0', status: input.target === 'two.com' ? 'fail' : 'pass', detail: 'x'.repeat(500) },
        { id: 'test.rule_1', title: 'Rule 1', status: 'skipped', detail: 'out of scope' },
      ],
    });
    const reply = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'email_security', target: 'one.com', targets: ['two.com'], scope: { reputation: false } },
    });
    expect(reply.body.checks).toEqual([]);
    await service.runtime.drain();
    const scan = (await service.call(`/api/scans/${reply.body.id}/`, { token })).body;
    expect(scan.checks.map((check: { target: string; id: string; status: string }) => [check.target, check.id, check.status])).toEqual([
      ['one.com', 'test.rule_0', 'pass'],
      ['one.com', 'test.rule_1', 'skipped'],
      ['two.com', 'test.rule_0', 'fail'],
      ['two.com', 'test.rule_1', 'skipped'],
    ]);
    expect(scan.checks[0].detail).toHaveLength(200);
  });

  it('scans up to four targets of one job at once and lists findings and errors in target order', async () => {
    const targets = Array.from({ length: 10 }, (_, i) => `t${i}.com`);
    const waiting: { target: string; finish: () => void }[] = [];
    let inFlight = 0;
    let peak = 0;
    runner.behaviour = (input) =>
      new Promise((resolve) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        waiting.push({
          target: input.target,
          finish: () => {
            inFlight -= 1;
            resolve({
              findings: [finding(1, { evidence: { host: input.target } })],
              errors: ['t1.com', 't8.com'].includes(input.target) ? ['resolver refused'] : [],
            });
          },
        });
      });

    const reply = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'email_security', target: targets[0], targets: targets.slice(1), scope: { reputation: false } },
    });
    const drained = service.runtime.drain();
    // Each time the pool is full (or holds all that is left), finish the newest running target: t3,
    // t4, ... t9 finish before t2, t1, t0, so t8's error comes back before t1's.
    for (let finished = 0; finished < targets.length; finished += 1) {
      while (inFlight < Math.min(4, targets.length - finished)) await new Promise((resolve) => setImmediate(resolve));
      waiting.pop()!.finish();
    }
    await drained;
    const scan = (await service.call(`/api/scans/${reply.body.id}/`, { token })).body;
    const found = (await service.call(`/api/findings/?scan_id=${scan.id}&limit=100`, { token })).body.items;

    expect(peak).toBe(4);
    expect(scan).toMatchObject({
      status: 'partial',
      finding_count: 10,
      errors: [
        { runner: runner.name, message: 't1.com: resolver refused' },
        { runner: runner.name, message: 't8.com: resolver refused' },
      ],
    });
    expect(found.map((item: { target: string }) => item.target).sort()).toEqual([...targets].sort());
  });

  it('refuses a scan or schedule of a type with no runner here, on scan_type, storing nothing (DESIGN §4)', async () => {
    const scan = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'dast', target: 'https://app.example.com/' },
    });
    const schedule = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ scan_type: 'vm', target: '93.184.215.14' }),
    });
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    const retyped = await service.call(`/api/scans/schedules/${created.body.id}/`, {
      method: 'PATCH',
      token,
      body: { scan_type: 'dast', target: 'https://app.example.com/' },
    });
    for (const reply of [scan, schedule, retyped]) {
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toContainEqual({ field: 'scan_type', message: 'has no runner in this deployment' });
    }
    expect((await service.call('/api/scans/', { token })).body.items).toEqual([]);
    expect((await service.call('/api/scans/schedules/', { token })).body.items.map((row: { scan_type: string }) => row.scan_type)).toEqual([
      'email_security',
    ]);
  });

  it('answers run now with 202 {scan, schedule}, keeps enabled, and runs the job', async () => {
    runner.behaviour = async () => ({ findings: [] });
    const { body: paused } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody({ enabled: false }) });

    const reply = await service.call(`/api/scans/schedules/${paused.id}/run/`, { method: 'POST', token });
    await service.runtime.drain();
    const after = (await service.call(`/api/scans/schedules/${paused.id}/`, { token })).body;

    expect(reply.status).toBe(202);
    expect(reply.body.scan).toMatchObject({ status: 'queued', trigger: 'run_now', source_type: 'schedule', schedule_id: paused.id });
    expect(reply.body.schedule).toMatchObject({
      id: paused.id,
      enabled: false,
      last_run_status: 'running',
      last_scan_id: reply.body.scan.id,
    });
    expect(after).toMatchObject({ enabled: false, last_run_status: 'success', last_scan_id: reply.body.scan.id });
  });

  it('refuses run now with 409 conflict while a scan of the schedule is still queued, and accepts it once that scan started', async () => {
    runner.behaviour = async () => ({ findings: [] });
    const { body: schedule } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    const first = await service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token });
    const queuedBefore = service.runtime.scanQueue.stats().visible;

    const repeats = await Promise.all(
      Array.from({ length: 5 }, () => service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token })),
    );
    const queuedAfter = service.runtime.scanQueue.stats().visible;
    const jobs = (await service.call(`/api/scans/?schedule_id=${schedule.id}`, { token })).body.items;
    await service.runtime.drain();
    const again = await service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token });

    expect(first.status).toBe(202);
    expect(repeats.map((reply) => [reply.status, reply.body.error.code])).toEqual(Array.from({ length: 5 }, () => [409, 'conflict']));
    expect(repeats[0].body.error.message).toContain(first.body.scan.id);
    expect(queuedAfter).toBe(queuedBefore);
    expect(jobs).toHaveLength(1);
    expect(again.status).toBe(202);
  });

  it('lists scans newest first with filters, and findings with filters', async () => {
    runner.behaviour = async (input) => {
      if (input.target === 'fail.com') throw new Error('resolver exploded');
      return { findings: [finding(0, { evidence: { host: input.target } })] };
    };
    const manual = (body: Record<string, unknown>) => service.call('/api/scans/', { method: 'POST', token, body });
    await manual({ scan_type: 'email_security', target: 'fail.com' });
    service.clock.advance(MINUTE);
    await manual({ scan_type: 'ssl', target: 'www.example.com:443' });
    service.clock.advance(MINUTE);
    await manual({ scan_type: 'email_security', target: 'one.com', targets: ['two.com'] });
    await service.runtime.drain();

    const all = (await service.call('/api/scans/?limit=200', { token })).body.items;
    const failed = (await service.call('/api/scans/?status=failed', { token })).body.items;
    const ssl = (await service.call('/api/scans/?scan_type=ssl', { token })).body.items;
    const high = (await service.call('/api/findings/?severity=high&limit=200', { token })).body.items;
    const byTarget = (await service.call('/api/findings/?target=two.com', { token })).body.items;

    expect(all.map((scan: { id: string }) => scan.id)).toEqual([...all.map((scan: { id: string }) => scan.id)].sort().reverse());
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.every((scan: { status: string }) => scan.status === 'failed')).toBe(true);
    expect(ssl).toHaveLength(1);
    expect(high.length).toBeGreaterThan(0);
    expect(high.every((f: { severity: string }) => f.severity === 'high')).toBe(true);
    expect(byTarget).toHaveLength(1);
  });

  it('lists the scans of one target in any case and as an IDN, from the target index', async () => {
    runner.behaviour = async () => ({ findings: [] });
    const manual = (target: string) =>
      service.call('/api/scans/', { method: 'POST', token, body: { scan_type: 'email_security', target } });
    const ids = [
      (await manual('Bücher.example')).body.id,
      (await manual('other.example')).body.id,
      (await manual('xn--bcher-kva.example')).body.id,
    ];
    await service.runtime.drain();

    const listed = async (query: string) =>
      (await service.call(`/api/scans/?${query}`, { token })).body.items.map((scan: { id: string }) => scan.id);

    expect(await listed(`target=${encodeURIComponent('BÜCHER.EXAMPLE')}`)).toEqual([ids[2], ids[0]]);
    expect(await listed('target=xn--bcher-kva.example&scan_type=email_security&status=succeeded')).toEqual([ids[2], ids[0]]);
    expect(await listed('target=xn--bcher-kva.example&scan_type=ssl')).toEqual([]);
    // A page's cursor stays within its target.
    const first = (await service.call('/api/scans/?target=xn--bcher-kva.example&limit=1', { token })).body;
    const next = await service.call(`/api/scans/?target=other.example&limit=1&cursor=${first.next_cursor}`, { token });
    expect(next.status).toBe(400);
  });
  it('lists summaries without checks or errors, with target and error counts; the scan itself keeps them', async () => {
    runner.behaviour = async (input) => {
      if (input.target === 'two.com') throw new Error('resolver exploded');
      return { findings: [] };
    };
    const created = (
      await service.call('/api/scans/', {
        method: 'POST',
        token,
        body: { scan_type: 'email_security', target: 'one.com', targets: ['two.com', 'three.com'] },
      })
    ).body;
    await service.runtime.drain();

    const [listed] = (await service.call('/api/scans/', { token })).body.items;
    const whole = (await service.call(`/api/scans/${created.id}/`, { token })).body;

    expect(listed.id).toBe(created.id);
    expect(listed).not.toHaveProperty('checks');
    expect(listed).not.toHaveProperty('errors');
    expect(listed).toMatchObject({ target_count: 3, error_count: whole.errors.length, status: whole.status });
    expect(whole.errors.length).toBeGreaterThan(0);
    const { checks: _checks, errors: _errors, ...rest } = whole;
    expect(listed).toEqual({ ...rest, target_count: 3, error_count: whole.errors.length });
  });

  it('searches scans by any part of any of their targets, in any case, and keeps a cursor within its search', async () => {
    runner.behaviour = async () => ({ findings: [] });
    const manual = (target: string, targets?: string[]) =>
      service.call('/api/scans/', {
        method: 'POST',
        token,
        body: { scan_type: 'email_security', target, ...(targets ? { targets } : {}) },
      });
    const shop = (await manual('shop.example.com')).body.id;
    const fleet = (await manual('mail.other.org', ['Shop.Example.net'])).body.id;
    const unrelated = (await manual('unrelated.test')).body.id;
    await service.runtime.drain();

    const search = async (query: string) => service.call(`/api/scans/?${query}`, { token });
    const ids = async (query: string) => (await search(query)).body.items.map((scan: { id: string }) => scan.id);

    expect(await ids('search=SHOP.example')).toEqual([fleet, shop]);
    expect(await ids('search=other.org')).toEqual([fleet]);
    expect(await ids('search=.test')).toEqual([unrelated]);
    expect(await ids('search=nothing-like-it')).toEqual([]);
    expect(await ids('search=shop&scan_type=ssl')).toEqual([]);
    const first = (await search('search=shop&limit=1')).body;
    expect(first.items.map((scan: { id: string }) => scan.id)).toEqual([fleet]);
    expect(await ids(`search=shop&limit=1&cursor=${first.next_cursor}`)).toEqual([shop]);
    expect((await search(`search=other&limit=1&cursor=${first.next_cursor}`)).status).toBe(400);
    const blank = await search('search=%20%20');
    expect(blank.status).toBe(400);
    expect(JSON.stringify(blank.body)).toContain('Type at least one character to search for.');
  });
});

describe('dispatch reliability', () => {
  let service: TestService;
  let runner: ScriptedRunner;
  let tenant: string;
  let token: string;
  let crashes = 0;

  beforeAll(async () => {
    runner = new ScriptedRunner();
    service = await startTestService({
      runners: new Map([['email_security', runner]]),
      wrapFindings: (inner): FindingRepository => ({
        ...inner,
        occurrences: (tenant, fingerprint, limit) => inner.occurrences(tenant, fingerprint, limit),
        list: (tenant, filter, limit, cursor) => inner.list(tenant, filter, limit, cursor),
        // A worker dying mid-write: half the findings land, then the invocation is gone.
        async save(tenant, records) {
          if (crashes > 0) {
            crashes -= 1;
            await inner.save(tenant, records.slice(0, Math.ceil(records.length / 2)));
            throw new Error('worker killed');
          }
          await inner.save(tenant, records);
        },
      }),
    });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    tenant = freshTenant('rely');
    token = await service.token(tenant, 'operator');
  });

  async function jobsOf(scheduleId: string) {
    return (await service.call(`/api/scans/?schedule_id=${scheduleId}&limit=200`, { token })).body.items;
  }

  function fire(scheduleId: string, scheduledTime: string, executionId: string): string {
    return JSON.stringify({ kind: 'fire', tenant, schedule_id: scheduleId, scheduled_time: scheduledTime, execution_id: executionId });
  }

  it('makes one ScanJob of the same fire delivered 5 times concurrently, over 20 trials', async () => {
    runner.behaviour = async () => ({ findings: [finding(1)] });
    const { body: schedule } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ enabled: false }),
    });
    await service.call(`/api/scans/schedules/${schedule.id}/toggle/`, { method: 'POST', token });

    for (let trial = 0; trial < 20; trial += 1) {
      const time = new Date(Date.UTC(2026, 3, 1, 0, trial * 5)).toISOString().replace('.000Z', 'Z');
      const message = QueueMessage.parse(JSON.parse(fire(schedule.id, time, `exec-${trial}`)));
      if (message.kind !== 'fire') throw new Error('not a fire');
      await Promise.all(Array.from({ length: 5 }, () => service.runtime.dispatch.handleFire(message, () => 60_000)));
    }

    const jobs = await jobsOf(schedule.id);
    expect(jobs).toHaveLength(20);
    expect(new Set(jobs.map((job: { scheduled_time: string }) => job.scheduled_time)).size).toBe(20);
    expect(jobs.every((job: { status: string }) => job.status === 'succeeded')).toBe(true);
    expect(runner.calls.length).toBeGreaterThanOrEqual(20);
    const findings = (await service.call(`/api/findings/?rule_id=test.rule_1&limit=200`, { token })).body.items;
    expect(findings).toHaveLength(20);
  });

  it('makes one ScanJob of the split cron double fire (two triggers, same minute)', async () => {
    const { body: split } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ cadence: 'custom', cron_expression: '0 0 1,15 * 1' }),
    });
    service.runtime.scanQueue.sendRaw(fire(split.id, '2026-06-01T00:00:00Z', 'from-dom'));
    service.runtime.scanQueue.sendRaw(fire(split.id, '2026-06-01T00:00:00Z', 'from-dow'));

    await service.runtime.drain();

    expect(await jobsOf(split.id)).toHaveLength(1);
  });

  it('finishes a job once, without duplicate findings, after a worker dies mid-scan', async () => {
    runner.behaviour = async () => ({ findings: [finding(1), finding(2), finding(3), finding(4)] });
    crashes = 1;
    const { body: scan } = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'email_security', target: 'crash.com' },
    });

    await service.runtime.drain();
    const afterCrash = (await service.call(`/api/scans/${scan.id}/`, { token })).body;
    service.clock.advance(31 * MINUTE);
    await service.runtime.drain();
    const finished = (await service.call(`/api/scans/${scan.id}/`, { token })).body;
    const findings = (await service.call(`/api/findings/?scan_id=${scan.id}`, { token })).body.items;

    expect(afterCrash.status).toBe('running');
    expect(finished).toMatchObject({ status: 'succeeded', finding_count: 4 });
    expect(findings).toHaveLength(4);
    expect(new Set(findings.map((f: { fingerprint: string }) => f.fingerprint)).size).toBe(4);
  });

  it('sends a poison message to the DLQ after the maximum receives and marks the job and schedule failed', async () => {
    runner.behaviour = async () => ({ findings: [finding(9)] });
    crashes = 1_000;
    const { body: schedule } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ enabled: false }),
    });
    const { body: run } = await service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token });

    for (let attempt = 0; attempt < 6; attempt += 1) {
      await service.runtime.drain();
      service.clock.advance(31 * MINUTE);
    }
    crashes = 0;
    const scan = (await service.call(`/api/scans/${run.scan.id}/`, { token })).body;
    const after = (await service.call(`/api/scans/schedules/${schedule.id}/`, { token })).body;

    expect(scan.status).toBe('failed');
    expect(scan.errors).toContainEqual({
      runner: 'dispatch',
      message: 'the scan message exhausted its deliveries to the dispatcher (the queue moved it to the DLQ)',
    });
    expect(after).toMatchObject({ last_run_status: 'failed', last_scan_id: run.scan.id, enabled: false });
    expect(service.runtime.scanQueue.stats()).toEqual({ visible: 0, inFlight: 0 });
    expect(service.runtime.deadLetterQueue.stats()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('answers run now with 503 dispatch_failed when the queue refuses, leaving nothing running and enabled unchanged', async () => {
    const { body: schedule } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    service.runtime.scanQueue.setRefusing('queue unavailable');
    try {
      const reply = await service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token });
      const manual = await service.call('/api/scans/', {
        method: 'POST',
        token,
        body: { scan_type: 'email_security', target: 'refused.com' },
      });

      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('dispatch_failed');
      expect(manual.status).toBe(503);
    } finally {
      service.runtime.scanQueue.setRefusing(null);
    }
    const after = (await service.call(`/api/scans/schedules/${schedule.id}/`, { token })).body;
    const job = (await service.call(`/api/scans/${after.last_scan_id}/`, { token })).body;
    const running = (await service.call('/api/scans/?status=running', { token })).body.items;
    const queued = (await service.call('/api/scans/?status=queued', { token })).body.items;

    expect(after).toMatchObject({ enabled: true, last_run_status: 'failed' });
    expect(job).toMatchObject({ status: 'failed', errors: [{ runner: 'dispatch', message: expect.any(String) }] });
    expect(running).toEqual([]);
    expect(queued).toEqual([]);
  });

  it('never lets an older job finishing late overwrite the status of a newer one', async () => {
    const { body: schedule } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ enabled: false }),
    });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    runner.calls = [];
    runner.behaviour = async (_input, call) => {
      if (call !== 1) throw new Error('newer fails');
      await slow;
      return { findings: [] };
    };
    const older = (await service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token })).body.scan;
    const messages = service.runtime.scanQueue.receive(10);
    const olderRun = service.runtime.dispatch.handleScan({ kind: 'scan', tenant, scan_id: older.id }, () => 60_000);
    while (runner.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The older job is running now, so run now is allowed again.
    service.clock.advance(MINUTE);
    const newer = (await service.call(`/api/scans/schedules/${schedule.id}/run/`, { method: 'POST', token })).body.scan;
    messages.push(...service.runtime.scanQueue.receive(10));
    await service.runtime.dispatch.handleScan({ kind: 'scan', tenant, scan_id: newer.id }, () => 60_000);
    release();
    await olderRun;
    for (const message of messages) service.runtime.scanQueue.delete(message.receiptHandle);

    const after = (await service.call(`/api/scans/schedules/${schedule.id}/`, { token })).body;
    expect(after).toMatchObject({ last_scan_id: newer.id, last_run_status: 'failed' });
    expect((await service.call(`/api/scans/${older.id}/`, { token })).body.status).toBe('succeeded');
  });

  it('drops and logs a fire for a deleted or disabled schedule', async () => {
    const admin = await service.token(tenant, 'admin');
    const { body: gone } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    const { body: paused } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody({ enabled: false }) });
    await service.call(`/api/scans/schedules/${gone.id}/`, { method: 'DELETE', token: admin });
    service.runtime.scanQueue.sendRaw(fire(gone.id, '2026-07-01T02:00:00Z', 'x'));
    service.runtime.scanQueue.sendRaw(fire(paused.id, '2026-07-01T02:00:00Z', 'y'));

    await service.runtime.drain();

    expect(await jobsOf(gone.id)).toEqual([]);
    expect(await jobsOf(paused.id)).toEqual([]);
    expect(service.runtime.scanQueue.stats()).toEqual({ visible: 0, inFlight: 0 });
  });
});
