import { beforeEach, describe, expect, it } from 'vitest';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { LocalTriggerScheduler } from '../../shared/adapters/local/local-trigger-scheduler.ts';
import { ConflictError, NotFoundError, QuotaExceededError, TriggerUnavailableError, ValidationError } from '../../shared/domain/errors.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { makeReconcileService } from '../../shared/services/reconcile-service.ts';
import { makeScheduleService } from '../../shared/services/schedule-service.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { record } from '../helpers/call-log.ts';
import { FaultyTriggers } from '../helpers/faulty-triggers.ts';

function setup(quota = 10) {
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const repo = new InMemoryScheduleRepository();
  const scheduler = new LocalTriggerScheduler({ clock, queue: new LocalQueue({ name: 'q', clock, visibilityTimeoutMs: 1000 }) });
  const triggers = new FaultyTriggers(scheduler);
  let n = 0;
  const ids = { newId: (prefix: string) => `${prefix}_${String(++n).padStart(26, '0')}`, forFire: () => 'scan_unused' };
  // The repository's and the trigger scheduler's calls, in one sequence, as the service made them.
  const calls: string[] = [];
  const service = makeScheduleService({
    repo: record(calls, 'repo', repo),
    triggers: record(calls, 'triggers', triggers),
    clock,
    ids,
    logger: silentLogger,
    quota,
  });
  return { clock, repo, scheduler, triggers, service, calls };
}

const daily = { name: 'n', scan_type: 'email_security', target: 'example.com', cadence: 'daily' } as const;

describe('schedule service', () => {
  let world: ReturnType<typeof setup>;
  beforeEach(() => {
    world = setup();
  });

  it('provisions the trigger before storing the row', async () => {
    const created = await world.service.create('acme', daily);

    expect(world.calls).toEqual(['repo.count', 'triggers.sync', 'repo.create']);
    expect(world.repo.rows.size).toBe(1);
    expect(await world.scheduler.list()).toEqual([
      { name: created.id, tenant: 'acme', scheduleId: created.id, expression: 'cron(0 2 * * ? *)', timezone: 'UTC' },
    ]);
  });

  it('stores nothing when provisioning the trigger fails, and leaves no trigger behind', async () => {
    world.triggers.failures = ['half'];

    await expect(world.service.create('acme', { ...daily, cadence: 'custom', cron_expression: '0 0 1,15 * 1' })).rejects.toBeInstanceOf(
      TriggerUnavailableError,
    );

    // The failed sync is followed by the restore (read the row, sync to what it asks: none); never a create.
    expect(world.calls).toEqual(['repo.count', 'triggers.sync', 'repo.get', 'triggers.sync']);
    expect(world.repo.rows.size).toBe(0);
    expect(await world.scheduler.list()).toEqual([]);
  });

  it('changes the trigger before writing the row on a patch, and removes it before deleting the row', async () => {
    const created = await world.service.create('acme', daily);
    world.calls.length = 0;

    await world.service.update('acme', created.id, { cadence: 'weekly' });
    await world.service.remove('acme', created.id);

    expect(world.calls).toEqual(['repo.get', 'triggers.sync', 'repo.update', 'repo.get', 'triggers.sync', 'repo.delete']);
  });

  it('removes the trigger again when the row write fails', async () => {
    world.repo.failNextWrite = new Error('table unavailable');

    await expect(world.service.create('acme', daily)).rejects.toThrow('table unavailable');

    expect(world.repo.rows.size).toBe(0);
    expect(await world.scheduler.list()).toEqual([]);
  });

  it('puts the old trigger back when a patch loses the version race', async () => {
    const created = await world.service.create('acme', daily);
    world.repo.failNextWrite = new ConflictError('stale');

    await expect(world.service.update('acme', created.id, { cadence: 'weekly' })).rejects.toBeInstanceOf(ConflictError);

    expect((await world.scheduler.list()).map((t) => t.expression)).toEqual(['cron(0 2 * * ? *)']);
  });

  it('refuses past the quota before touching the scheduler', async () => {
    const small = setup(1);
    await small.service.create('acme', daily);
    const callsBefore = small.triggers.calls;

    await expect(small.service.create('acme', daily)).rejects.toBeInstanceOf(QuotaExceededError);

    expect(small.triggers.calls).toBe(callsBefore);
  });

  it('does not call the scheduler for a disabled create or a change that keeps the trigger', async () => {
    const created = await world.service.create('acme', { ...daily, enabled: false });
    await world.service.update('acme', created.id, { name: 'renamed' });

    expect(world.triggers.calls).toBe(0);
  });

  it('reports a missing schedule as NotFoundError and a bad crontab as ValidationError', async () => {
    await expect(world.service.get('acme', 'sch_nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(world.service.create('acme', { ...daily, cadence: 'custom', cron_expression: '* * * * *' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('leaves the row unchanged when the scheduler refuses a toggle', async () => {
    const created = await world.service.create('acme', daily);
    world.triggers.failures = ['refuse'];

    await expect(world.service.toggle('acme', created.id)).rejects.toBeInstanceOf(TriggerUnavailableError);

    expect((await world.service.get('acme', created.id)).enabled).toBe(true);
    expect(await world.scheduler.list()).toHaveLength(1);
  });

  it('computes next_run_at from the clock and hides the trigger when disabled', async () => {
    const created = await world.service.create('acme', {
      ...daily,
      cadence: 'custom',
      cron_expression: '0 3 * * 1',
      timezone: 'Europe/Paris',
    });
    world.clock.set('2026-03-09T02:00:01Z');

    const later = await world.service.get('acme', created.id);
    const paused = await world.service.toggle('acme', created.id);

    expect(created.next_run_at).toBe('2026-03-09T02:00:00.000Z');
    expect(later.next_run_at).toBe('2026-03-16T02:00:00.000Z');
    expect(paused).toMatchObject({ trigger: null, next_run_at: null });
  });
});

describe('reconcile service', () => {
  it('deletes unreadable scheduler entries on a full run and leaves them alone for one tenant', async () => {
    const world = setup();
    const deleted: string[] = [];
    const unrecognised = {
      inventory: async () => ({ unrecognised: [{ name: 'stray', reason: 'input is not a fire message' }] }),
      deleteTrigger: async (name: string) => {
        deleted.push(name);
      },
    };
    const reconciler = makeReconcileService({ repo: world.repo, triggers: world.scheduler, logger: silentLogger, unrecognised });

    const scoped = await reconciler.reconcile({ dryRun: false, tenant: 'acme' });
    const full = await reconciler.reconcile({ dryRun: false });

    expect(scoped.actions).toEqual([]);
    expect(full.actions).toEqual([
      { kind: 'remove', tenant: '', schedule_id: 'stray', reason: 'unreadable trigger: input is not a fire message' },
    ]);
    expect(deleted).toEqual(['stray']);
  });

  it('records a failed repair and goes on with the others', async () => {
    const world = setup();
    const a = await world.service.create('acme', daily);
    const b = await world.service.create('acme', daily);
    await world.scheduler.sync('acme', a.id, null);
    await world.scheduler.sync('acme', b.id, null);
    world.triggers.failures = ['refuse'];
    const reconciler = makeReconcileService({ repo: world.repo, triggers: world.triggers, logger: silentLogger });

    const report = await reconciler.reconcile({ dryRun: false });

    expect(report.actions).toHaveLength(2);
    expect(report.failures).toHaveLength(1);
    expect(await world.scheduler.list()).toHaveLength(1);
  });
});
