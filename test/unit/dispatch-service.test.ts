import { describe, expect, it } from 'vitest';
import type { FireMessage } from '../../shared/domain/messages.ts';
import type { RunnerResult } from '../../shared/ports/scan-runner.ts';
import { scheduleRecord } from '../contracts/schedule-repository-contract.ts';
import { MARGIN_MS, deferred, heldRunner, scanPath } from '../helpers/scan-path.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

const ENOUGH_TIME = () => 60_000;

function fire(scheduleId: string, scheduledTime: string, execution = 'e1'): FireMessage {
  return { kind: 'fire', tenant: 'acme', schedule_id: scheduleId, scheduled_time: scheduledTime, execution_id: execution };
}

async function withSchedule(path: ReturnType<typeof scanPath>, overrides: Parameters<typeof scheduleRecord>[2] = {}) {
  const schedule = scheduleRecord('acme', 1, overrides);
  await path.schedules.create(schedule, 100);
  return schedule;
}

describe('dispatch service on in-memory fakes', () => {
  describe('a cron fire', () => {
    it('makes one job of the fire, runs it and records the run on the schedule', async () => {
      const path = scanPath();
      const schedule = await withSchedule(path);

      const job = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), ENOUGH_TIME);

      expect(job).toMatchObject({
        id: path.ids.forFire('acme', schedule.id, '2026-03-02T10:00:00Z'),
        status: 'succeeded',
        source_type: 'schedule',
        trigger: 'cron',
        finding_count: 2,
      });
      expect([...path.scans.rows.values()].map((stored) => stored.status)).toEqual(['succeeded']);
      expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_scan_id: job?.id, last_run_status: 'success' });
      expect([path.count('ScansStarted'), path.count('ScansFinished')]).toEqual([1, 1]);
    });

    it('answers a redelivery of a finished fire with the same job and runs nothing again', async () => {
      const runner = new ScriptedRunner();
      const path = scanPath({ runner });
      const schedule = await withSchedule(path);
      const first = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z', 'e1'), ENOUGH_TIME);

      path.clock.advance(60_000);
      const again = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z', 'e2'), ENOUGH_TIME);

      expect(again).toEqual(first);
      expect(runner.calls).toHaveLength(1);
      expect(path.scans.rows.size).toBe(1);
      expect(path.findings.rows.size).toBe(2);
      expect(path.count('ScansFinished')).toBe(1);
    });

    it('tells the schedule again when the first worker died between finishing the job and the schedule', async () => {
      const path = scanPath();
      const schedule = await withSchedule(path);
      const job = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), ENOUGH_TIME);
      // The crash: the job finished, the schedule still says running.
      path.schedules.rows.get(`acme/${schedule.id}`)!.last_run_status = 'running';

      await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z', 'e2'), ENOUGH_TIME);

      expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_scan_id: job?.id, last_run_status: 'success' });
    });

    it('makes one job of two concurrent deliveries of one fire, finished once', async () => {
      const gate = deferred<RunnerResult>();
      const runner = new ScriptedRunner();
      runner.behaviour = () => gate.promise;
      const path = scanPath({ runner });
      const schedule = await withSchedule(path);

      const deliveries = [1, 2].map((n) => path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z', `e${n}`), ENOUGH_TIME));
      gate.resolve({ findings: [finding(1)] });
      const [a, b] = await Promise.all(deliveries);

      expect(path.scans.rows.size).toBe(1);
      expect(a?.id).toBe(b?.id);
      expect([...path.scans.rows.values()][0]).toMatchObject({ status: 'succeeded', finding_count: 1 });
      expect(path.findings.rows.size).toBe(1);
      expect([path.count('ScansStarted'), path.count('ScansFinished')]).toEqual([1, 1]);
    });

    it('runs a job a crashed worker left running, once more, to its end', async () => {
      const path = scanPath();
      const schedule = await withSchedule(path);
      const scheduledTime = '2026-03-02T10:00:00Z';
      const failing = path.scans.failNext;
      // The first worker claims the fire (schedule marked, job inserted running) and dies: its
      // engine's first write fails as a crash would leave it.
      failing.transition = new Error('worker killed');
      await expect(path.dispatch.handleFire(fire(schedule.id, scheduledTime, 'e1'), ENOUGH_TIME)).rejects.toThrow('worker killed');
      const jobId = path.ids.forFire('acme', schedule.id, scheduledTime);
      expect(await path.scans.get('acme', jobId)).toMatchObject({ status: 'running' });

      const job = await path.dispatch.handleFire(fire(schedule.id, scheduledTime, 'e2'), ENOUGH_TIME);

      expect(job).toMatchObject({ id: jobId, status: 'succeeded', finding_count: 2 });
      expect(path.findings.rows.size).toBe(2);
      expect(path.count('ScansStarted')).toBe(1);
      expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_scan_id: jobId, last_run_status: 'success' });
    });

    it('drops a fire for a deleted schedule: no job, one FiresDropped', async () => {
      const path = scanPath();
      const schedule = await withSchedule(path);
      await path.schedules.delete('acme', schedule.id, schedule.version);

      const job = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), ENOUGH_TIME);

      expect(job).toBeNull();
      expect(path.scans.rows.size).toBe(0);
      expect(path.count('FiresDropped')).toBe(1);
    });

    it('drops a fire for a disabled schedule and leaves the schedule as it was', async () => {
      const path = scanPath();
      const schedule = await withSchedule(path, { enabled: false });

      const job = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), ENOUGH_TIME);

      expect(job).toBeNull();
      expect(path.scans.rows.size).toBe(0);
      expect(await path.schedules.get('acme', schedule.id)).toEqual(schedule);
    });

    it('runs a fire older than the schedule’s last scan but leaves the schedule to the newer one', async () => {
      const path = scanPath();
      const schedule = await withSchedule(path);
      const newer = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T11:00:00Z'), ENOUGH_TIME);

      const older = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), ENOUGH_TIME);

      expect(older).toMatchObject({ status: 'succeeded', scheduled_time: '2026-03-02T10:00:00Z' });
      expect(path.scans.rows.size).toBe(2);
      expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_scan_id: newer?.id, last_run_status: 'success' });
    });

    it('keeps the newer scan’s status on the schedule when an older job finishes after it', async () => {
      const slow = deferred<RunnerResult>();
      const runner = new ScriptedRunner();
      runner.behaviour = async (_input, call) => (call === 1 ? slow.promise : { findings: [finding(1)] });
      const path = scanPath({ runner });
      const schedule = await withSchedule(path);

      const older = path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), ENOUGH_TIME);
      path.clock.advance(3_600_000);
      const newer = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T11:00:00Z'), ENOUGH_TIME);
      slow.reject(new Error('resolver unreachable'));
      const finishedOlder = await older;

      expect(finishedOlder).toMatchObject({
        status: 'failed',
        errors: [{ runner: 'scripted', message: 'example.com: resolver unreachable' }],
      });
      expect(newer).toMatchObject({ status: 'succeeded' });
      expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_scan_id: newer?.id, last_run_status: 'success' });
    });
  });

  describe('a scan message', () => {
    it('drops a message for an unknown job', async () => {
      const path = scanPath();

      expect(
        await path.dispatch.handleScan({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01HZ0000000000000000000000' }, ENOUGH_TIME),
      ).toBeNull();
      expect(path.scans.rows.size).toBe(0);
    });
  });

  describe('a dead letter', () => {
    it('fails the running job of a fire with the reason, and the schedule’s run with it', async () => {
      const { runner, started, result: gate } = heldRunner();
      const path = scanPath({ runner });
      const schedule = await withSchedule(path);
      const message = fire(schedule.id, '2026-03-02T10:00:00Z');
      const running = path.dispatch.handleFire(message, ENOUGH_TIME);
      await started;

      await path.dispatch.handleDeadLetter(message, 'receive count exceeded');
      gate.resolve({ findings: [finding(1)] });
      const afterwards = await running;

      const jobId = path.ids.forFire('acme', schedule.id, '2026-03-02T10:00:00Z');
      expect(await path.scans.get('acme', jobId)).toMatchObject({
        status: 'failed',
        errors: [{ runner: 'dispatch', message: 'receive count exceeded' }],
      });
      // The worker that was still running finds the job closed and leaves it so.
      expect(afterwards).toMatchObject({ status: 'failed' });
      expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_scan_id: jobId, last_run_status: 'failed' });
      expect(path.count('ScansFinished')).toBe(1);
    });

    it('has no job to fail for a fire of a deleted schedule', async () => {
      const path = scanPath();

      await path.dispatch.handleDeadLetter(fire('sch_01HZ0000000000000000000009', '2026-03-02T10:00:00Z'), 'receive count exceeded');

      expect(path.scans.rows.size).toBe(0);
      expect(path.count('ScansFinished')).toBe(0);
    });
  });

  it('refuses a target the time left cannot cover, without calling the runner', async () => {
    const runner = new ScriptedRunner();
    const path = scanPath({ runner });
    const schedule = await withSchedule(path);

    const job = await path.dispatch.handleFire(fire(schedule.id, '2026-03-02T10:00:00Z'), () => MARGIN_MS);

    expect(runner.calls).toEqual([]);
    expect(job).toMatchObject({
      status: 'failed',
      errors: [{ runner: 'scripted', message: 'no time left in the invocation for target example.com' }],
    });
    expect(await path.schedules.get('acme', schedule.id)).toMatchObject({ last_run_status: 'failed' });
  });
});
