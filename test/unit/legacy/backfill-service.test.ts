import { describe, expect, it } from 'vitest';
import { LocalQueue } from '../../../shared/adapters/local/local-queue.ts';
import { LocalTriggerScheduler } from '../../../shared/adapters/local/local-trigger-scheduler.ts';
import type { LegacySchedule } from '../../../shared/domain/legacy/legacy-schedule.ts';
import { ManualClock } from '../../fakes/manual-clock.ts';
import { silentLogger } from '../../fakes/silent-logger.ts';
import { makeArtifactReferences } from '../../../shared/services/artifact-references.ts';
import { BackfillUsageError, makeBackfillService } from '../../../shared/services/backfill-service.ts';
import { makeScheduleService } from '../../../shared/services/schedule-service.ts';
import { InMemoryArtifactRepository } from '../../fakes/in-memory-artifact-repository.ts';
import { InMemoryLegacyMarkerRepository } from '../../fakes/in-memory-legacy-marker-repository.ts';
import { InMemoryLegacySource } from '../../fakes/in-memory-legacy-source.ts';
import { InMemoryScheduleRepository } from '../../fakes/in-memory-schedule-repository.ts';
import { record } from '../../helpers/call-log.ts';
import { FaultyTriggers } from '../../helpers/faulty-triggers.ts';

const daily = { minute: '0', hour: '2', day_of_week: '*', day_of_month: '*', month_of_year: '*', timezone: 'UTC' };

function secretScan(id: number, overrides: { enabled?: boolean; crontab?: typeof daily } = {}): LegacySchedule {
  return {
    model: 'secretscan.schedule',
    id: String(id),
    name: `repo ${id}`,
    repository_url: `https://github.com/acme/repo-${id}`,
    scan_options: null,
    created_at: null,
    task: {
      id: 100 + id,
      name: `t${id}`,
      task: 'secretscan.run',
      enabled: overrides.enabled ?? true,
      one_off: false,
      crontab: overrides.crontab ?? daily,
      interval: null,
    },
  };
}

function network(id: number): LegacySchedule {
  return {
    model: 'network.continuousschedule',
    id: String(id),
    name: `net ${id}`,
    target: `10.0.${id}.0/24`,
    ports: '22',
    created_at: null,
    task: {
      id: 200 + id,
      name: `n${id}`,
      task: 'network.scan',
      enabled: true,
      one_off: false,
      crontab: null,
      interval: { every: 6, period: 'hours' },
    },
  };
}

// The legacy continuous network scans target the deployment's own ranges (10.0.x.0/24): they
// migrate where the deployment allows private targets (docs/hostile-input.md), as here by default.
function setup(quota = 100, allowPrivate = true) {
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const repo = new InMemoryScheduleRepository();
  const scheduler = new LocalTriggerScheduler({ clock, queue: new LocalQueue({ name: 'q', clock, visibilityTimeoutMs: 1000 }) });
  const triggers = new FaultyTriggers(scheduler);
  let n = 0;
  const newId = (prefix: string) => `${prefix}_${String(++n).padStart(26, '0')}`;
  // Legacy rows name no artifacts: the schedule service must not look any up for them.
  const artifactLookups: string[] = [];
  const schedules = makeScheduleService({
    repo,
    triggers,
    clock,
    ids: { newId, forFire: () => 'scan_unused' },
    logger: silentLogger,
    quota,
    artifacts: record(artifactLookups, 'artifacts', makeArtifactReferences(new InMemoryArtifactRepository(), clock)),
    targetPolicy: { allowPrivate },
  });
  const source = new InMemoryLegacySource()
    .add(
      'acme',
      [
        secretScan(1),
        secretScan(2, { enabled: false }),
        network(3),
        secretScan(4, { crontab: { ...daily, day_of_month: '1', day_of_week: '1' } }),
      ],
      2,
    )
    .add('globex', [secretScan(5)]);
  const markers = new InMemoryLegacyMarkerRepository();
  const backfill = makeBackfillService({ source, markers, schedules, clock, ids: { newId }, logger: silentLogger });
  return { repo, scheduler, triggers, source, markers, backfill, artifactLookups };
}

describe('backfill service', () => {
  it('migrates each legacy row through the schedule service and disables only the tasks it replaced', async () => {
    // prepare
    const world = setup();

    // act
    const report = await world.backfill.run({ dryRun: false });

    // assert
    expect(report.totals).toEqual({
      tenants: 2,
      migrated: 4,
      already_migrated: 0,
      skipped: 1,
      failed: 0,
      cloud_monitoring_not_migrated: 2,
    });
    const rows = [...world.repo.rows.values()];
    expect(rows.map((r) => [r.tenant, r.scope.source_legacy_model, r.scope.source_legacy_id, r.enabled]).sort()).toEqual([
      ['acme', 'network.continuousschedule', '3', true],
      ['acme', 'secretscan.schedule', '1', true],
      ['acme', 'secretscan.schedule', '2', false],
      ['globex', 'secretscan.schedule', '5', true],
    ]);
    expect(await world.scheduler.list()).toHaveLength(3);
    expect(world.artifactLookups).toEqual([]);
    expect(world.source.changes).toEqual([
      { tenant: 'acme', taskId: 101, enabled: false },
      { tenant: 'acme', taskId: 203, enabled: false },
      { tenant: 'globex', taskId: 105, enabled: false },
    ]);
    const skipped = report.tenants[0].rows.find((r) => r.outcome === 'skipped');
    expect(skipped).toMatchObject({
      legacy_id: '4',
      reason: expect.stringContaining('restricts both day_of_month (1) and day_of_week (1)'),
    });
    expect(world.source.taskEnabled('acme', 104)).toBe(true);
  });

  it('creates nothing on a second run and reports each row already migrated', async () => {
    // prepare
    const world = setup();
    await world.backfill.run({ dryRun: false });
    const before = structuredClone([...world.repo.rows.values()]);

    // act
    const report = await world.backfill.run({ dryRun: false });

    // assert
    expect(report.totals).toMatchObject({ migrated: 0, already_migrated: 4, skipped: 1, failed: 0 });
    expect([...world.repo.rows.values()]).toEqual(before);
    expect(world.source.changes).toHaveLength(3);
  });

  it('changes nothing in a dry run and reports what it would do', async () => {
    // prepare
    const world = setup();

    // act
    const report = await world.backfill.run({ dryRun: true });

    // assert
    expect(report.totals).toMatchObject({ migrated: 4, skipped: 1, failed: 0 });
    expect(world.repo.rows.size).toBe(0);
    expect(world.markers.markers.size).toBe(0);
    expect(world.source.changes).toEqual([]);
    expect(world.triggers.calls).toBe(0);
  });

  it('skips a private-range schedule where the deployment refuses private targets, in a dry run as in a real one', async () => {
    // prepare
    const world = setup(100, false);

    // act
    const dry = await world.backfill.run({ dryRun: true, tenant: 'acme' });
    const real = await world.backfill.run({ dryRun: false, tenant: 'acme' });

    // assert
    for (const report of [dry, real]) {
      expect(report.totals).toMatchObject({ migrated: 2, skipped: 2, failed: 0 });
      expect(report.tenants[0].rows.find((r) => r.legacy_id === '3')).toMatchObject({
        outcome: 'skipped',
        reason: expect.stringContaining('must not point inside the deployment: 10.0.3.0 is private'),
      });
    }
    expect([...world.repo.rows.values()].map((r) => r.scope.source_legacy_id).sort()).toEqual(['1', '2']);
    expect(world.source.taskEnabled('acme', 203)).toBe(true);
  });

  it('completes a run that died after creating a schedule: disables the task, creates nothing', async () => {
    // prepare
    const world = setup();
    world.source.failNextDisable = new Error('connection terminated');
    const first = await world.backfill.run({ dryRun: false, tenant: 'globex' });
    expect(first.totals).toMatchObject({ migrated: 0, failed: 1 });
    expect(world.repo.rows.size).toBe(1);
    expect(world.source.taskEnabled('globex', 105)).toBe(true);

    // act
    const second = await world.backfill.run({ dryRun: false, tenant: 'globex' });

    // assert
    expect(second.tenants[0].rows[0]).toMatchObject({
      outcome: 'already_migrated',
      notes: ['disabled the legacy task an earlier run left enabled'],
    });
    expect(world.repo.rows.size).toBe(1);
    expect(world.source.taskEnabled('globex', 105)).toBe(false);
  });

  it('creates the reserved schedule when a run died between its claim and the schedule', async () => {
    // prepare
    const world = setup();
    world.triggers.failures.push('refuse');
    const first = await world.backfill.run({ dryRun: false, tenant: 'globex' });
    expect(first.tenants[0].rows[0]).toMatchObject({ outcome: 'failed', reason: expect.stringContaining('trigger_unavailable') });
    expect(world.source.taskEnabled('globex', 105)).toBe(true);
    const reserved = [...world.markers.markers.values()][0].scheduleId;

    // act
    const second = await world.backfill.run({ dryRun: false, tenant: 'globex' });

    // assert
    expect(second.tenants[0].rows[0]).toMatchObject({ outcome: 'migrated', schedule_id: reserved });
    expect([...world.repo.rows.values()].map((r) => r.id)).toEqual([reserved]);
    expect(world.source.taskEnabled('globex', 105)).toBe(false);
  });

  it('migrates each row once when two runs race', async () => {
    // prepare
    const world = setup();

    // act
    const [a, b] = await Promise.all([world.backfill.run({ dryRun: false }), world.backfill.run({ dryRun: false })]);

    // assert
    expect(a.totals.migrated + b.totals.migrated).toBe(4);
    expect(a.totals.failed + b.totals.failed).toBe(0);
    expect(world.repo.rows.size).toBe(4);
    expect(await world.scheduler.list()).toHaveLength(3);
  });

  it('limits the run to one tenant', async () => {
    // prepare
    const world = setup();

    // act
    const report = await world.backfill.run({ dryRun: false, tenant: 'globex' });

    // assert
    expect(report.tenants.map((t) => t.tenant)).toEqual(['globex']);
    expect([...world.repo.rows.values()].every((r) => r.tenant === 'globex')).toBe(true);
  });

  it('refuses an unknown tenant before touching anything', async () => {
    // prepare
    const world = setup();

    // act
    const run = world.backfill.run({ dryRun: false, tenant: 'initech' });

    // assert
    await expect(run).rejects.toBeInstanceOf(BackfillUsageError);
    expect(world.markers.markers.size).toBe(0);
  });

  it('fails a row past the quota and leaves its legacy task enabled', async () => {
    // prepare
    const world = setup(1);

    // act
    const report = await world.backfill.run({ dryRun: false, tenant: 'acme' });

    // assert
    expect(report.totals).toMatchObject({ migrated: 1, failed: 2 });
    const failed = report.tenants[0].rows.filter((r) => r.outcome === 'failed');
    expect(failed.map((r) => r.reason)).toEqual([expect.stringContaining('quota_exceeded'), expect.stringContaining('quota_exceeded')]);
    for (const row of failed) {
      const taskId = Number(row.legacy_id) + (row.model === 'network.continuousschedule' ? 200 : 100);
      expect(world.source.changes.map((c) => c.taskId)).not.toContain(taskId);
    }
  });
});
