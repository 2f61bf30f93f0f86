import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makePostgresLegacySource } from '../../shared/adapters/postgres/postgres-legacy-source.ts';
import type { ScheduleRecord } from '../../shared/domain/schedule.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { makeBackfillService, type BackfillReport, type RowReport } from '../../shared/services/backfill-service.ts';
import { repositoryRoot } from '../../infra/paths.ts';
import { startLegacyPostgres, type LegacyPostgres } from '../helpers/legacy-postgres.ts';
import { engineLessRunners, SESSION_KEY, startTestService, type TestService } from '../helpers/local-service.ts';

const run = promisify(execFile);

/** What each legacy row of test/fixtures/legacy/tenants.sql becomes. */
const EXPECTED: Record<string, [outcome: RowReport['outcome'], what: string][]> = {
  acme: [
    ['migrated', 'secret_scan https://github.com/acme/api daily UTC enabled'],
    ['migrated', 'secret_scan https://github.com/acme/web weekly UTC enabled'],
    ['migrated', 'secret_scan https://gitlab.com/acme/mobile custom:30 9 * * 1-5 Europe/Paris enabled'],
    ['skipped', 'restricts both day_of_month (1) and day_of_week (1)'],
    ['migrated', 'secret_scan https://github.com/acme/infra custom:0 */6 * * * UTC disabled'],
    ['skipped', 'interval every 7 hours does not divide the day evenly'],
    ['migrated', 'secret_scan https://github.com/acme/payments monthly UTC enabled'],
    ['skipped', 'has no periodic task'],
    ['migrated', 'vm 93.184.215.0/24 custom:*/30 * * * * UTC enabled'],
    ['migrated', 'vm office.acme.example custom:*/15 8-18 * * 1-5 America/New_York enabled'],
    ['skipped', 'target'],
    ['skipped', 'target'],
    ['migrated', 'vm gw.acme.example daily UTC enabled'],
  ],
  globex: [
    ['migrated', 'secret_scan https://github.com/globex/core daily UTC enabled'],
    ['migrated', 'secret_scan https://github.com/globex/jp custom:0 */6 * * * Asia/Tokyo enabled'],
    ['migrated', 'secret_scan https://github.com/globex/old custom:0 */12 * * * UTC disabled'],
    ['skipped', 'is one-off'],
    ['migrated', 'vm 93.184.215.7 daily UTC enabled'],
    ['migrated', 'vm globex.example custom:0 */12 * * * UTC enabled'],
  ],
  initech: [
    ['migrated', 'secret_scan https://github.com/initech/tps custom:0 1 * * 0 UTC enabled'],
    ['migrated', 'secret_scan https://github.com/initech/reports custom:0 0 1,15 * * UTC enabled'],
    ['migrated', 'secret_scan https://bitbucket.org/initech/printer custom:0 */2 * * * UTC enabled'],
    ['skipped', 'target'],
    ['migrated', 'vm 10.1.2.3 custom:5 4 * * 0 Australia/Sydney enabled'],
    ['migrated', 'vm 10.1.2.0/24 custom:0 */2 * * * UTC disabled'],
    ['skipped', 'interval every 45 seconds is not a whole number of minutes'],
  ],
};
const MIGRATED = Object.values(EXPECTED)
  .flat()
  .filter(([outcome]) => outcome === 'migrated').length;
const SKIPPED = Object.values(EXPECTED)
  .flat()
  .filter(([outcome]) => outcome === 'skipped').length;

function describeRecord(r: ScheduleRecord): string {
  const timing = r.cadence === 'custom' ? `custom:${r.cron_expression}` : r.cadence;
  return `${r.scan_type} ${r.target} ${timing} ${r.timezone} ${r.enabled ? 'enabled' : 'disabled'}`;
}

describe('backfill against a legacy PostgreSQL (PGlite over the wire protocol)', () => {
  let legacy: LegacyPostgres;
  let service: TestService;
  let dataDir: string;

  beforeAll(async () => {
    legacy = await startLegacyPostgres();
    dataDir = await mkdtemp(join(tmpdir(), 'backfill-cli-'));
    await writeFile(join(dataDir, 'session-key'), `${SESSION_KEY}\n`);
  });
  afterAll(async () => {
    await legacy.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await legacy.reset();
    // The legacy deployment scanned its own 10.x ranges: this one allows private targets too
    // (docs/backfill.md); the unit tests show what the default policy skips.
    // Runners for both legacy types: a type without one is skipped (DESIGN §9, tested below).
    service = await startTestService({ allowPrivateTargets: true, runners: engineLessRunners(['email_security', 'secret_scan', 'vm']) });
  });
  afterEach(() => service.stop());

  async function backfill(
    body: Record<string, unknown>,
  ): Promise<{ report?: BackfillReport; error?: { code: string; message: string }; progress: unknown[] }> {
    const response = await fetch(`${service.runtime.url}/_local/backfill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-local-admin-key': SESSION_KEY },
      body: JSON.stringify({ database_url: legacy.url, ...body }),
    });
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    return {
      report: lines.find((l) => l.report)?.report,
      error: lines.find((l) => l.error)?.error,
      progress: lines.filter((l) => l.progress).map((l) => l.progress),
    };
  }

  async function cli(args: string[], env: Record<string, string | undefined> = { LEGACY_DATABASE_URL: legacy.url }) {
    try {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'local/backfill-cli.ts', ...args], {
        cwd: repositoryRoot,
        env: { ...process.env, PORT: String(service.runtime.port), DATA_DIR: dataDir, ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  async function rows(): Promise<ScheduleRecord[]> {
    const out: ScheduleRecord[] = [];
    for await (const row of service.runtime.repo.listAll()) out.push(row);
    return out;
  }

  async function markerCount(): Promise<number> {
    let n = 0;
    for (const tenant of Object.keys(EXPECTED)) for await (const _marker of service.runtime.legacyMarkers.list(tenant)) n += 1;
    return n;
  }

  it('changes nothing on either side in a dry run and reports what it would do', async () => {
    // prepare
    const before = await legacy.checksums();

    // act
    const { report } = await backfill({ dry_run: true });

    // assert
    expect(report?.totals).toEqual({
      tenants: 3,
      migrated: MIGRATED,
      already_migrated: 0,
      skipped: SKIPPED,
      failed: 0,
      cloud_monitoring_not_migrated: 5,
    });
    expect(await legacy.checksums()).toEqual(before);
    expect(await rows()).toEqual([]);
    expect(await markerCount()).toBe(0);
    expect(await service.runtime.scheduler.list()).toEqual([]);
  });

  it('migrates every row as mapped, changes only enabled and last_update, and says "already migrated" on a second run', async () => {
    // prepare
    const before = await legacy.checksums({
      django_celery_beat_periodictask: ['enabled'],
      django_celery_beat_periodictasks: ['last_update'],
    });
    const enabledBefore = await legacy.query<{ schema: string; id: number; enabled: boolean }>(
      "SELECT 'acme' AS schema, id, enabled FROM acme.django_celery_beat_periodictask UNION ALL SELECT 'globex', id, enabled FROM globex.django_celery_beat_periodictask UNION ALL SELECT 'initech', id, enabled FROM initech.django_celery_beat_periodictask",
    );

    // act
    const first = await backfill({});

    // assert: the report and the rows
    expect(first.report?.totals).toEqual({
      tenants: 3,
      migrated: MIGRATED,
      already_migrated: 0,
      skipped: SKIPPED,
      failed: 0,
      cloud_monitoring_not_migrated: 5,
    });
    const stored = await rows();
    for (const tenant of first.report!.tenants) {
      expect(tenant.rows.map((row) => row.outcome)).toEqual(EXPECTED[tenant.tenant].map(([outcome]) => outcome));
      tenant.rows.forEach((row, i) => {
        const [outcome, what] = EXPECTED[tenant.tenant][i];
        if (outcome === 'skipped') expect(row.reason).toContain(what);
        else expect(describeRecord(stored.find((r) => r.id === row.schedule_id)!)).toBe(what);
      });
    }
    expect(stored).toHaveLength(MIGRATED);
    expect(stored.every((r) => ['secretscan.schedule', 'network.continuousschedule'].includes(r.scope.source_legacy_model as string))).toBe(
      true,
    );
    const payments = stored.find((r) => r.target === 'https://github.com/acme/payments')!;
    expect(payments.name).toHaveLength(200);
    expect(payments.description).toContain('Full name: Quarterly deep secret scan');
    expect((await service.runtime.scheduler.list()).map((t) => t.scheduleId).sort()).toEqual(
      stored
        .filter((r) => r.enabled)
        .map((r) => r.id)
        .sort(),
    );

    // assert: the legacy side
    expect(
      await legacy.checksums({ django_celery_beat_periodictask: ['enabled'], django_celery_beat_periodictasks: ['last_update'] }),
    ).toEqual(before);
    const enabledAfter = await legacy.query<{ schema: string; id: number; enabled: boolean }>(
      "SELECT 'acme' AS schema, id, enabled FROM acme.django_celery_beat_periodictask UNION ALL SELECT 'globex', id, enabled FROM globex.django_celery_beat_periodictask UNION ALL SELECT 'initech', id, enabled FROM initech.django_celery_beat_periodictask",
    );
    const turnedOff = enabledAfter
      .filter((a) => !a.enabled && enabledBefore.find((b) => b.schema === a.schema && b.id === a.id)!.enabled)
      .map((a) => `${a.schema}:${a.id}`)
      .sort();
    // The migrated rows whose task was enabled: acme 1,2,3,7,8,9,12; globex 1,2,4,5; initech 1,2,3,4.
    expect(turnedOff).toEqual([
      'acme:1',
      'acme:12',
      'acme:2',
      'acme:3',
      'acme:7',
      'acme:8',
      'acme:9',
      'globex:1',
      'globex:2',
      'globex:4',
      'globex:5',
      'initech:1',
      'initech:2',
      'initech:3',
      'initech:4',
    ]);
    expect(enabledAfter.filter((a) => a.enabled).length).toBeGreaterThan(0);
    const bumped = await legacy.query<{ last_update: Date }>('SELECT last_update FROM acme.django_celery_beat_periodictasks');
    expect(bumped[0].last_update.getTime()).toBeGreaterThan(new Date('2025-01-01T00:00:00Z').getTime());
    const cloudTasks = await legacy.query<{ enabled: boolean }>(
      "SELECT enabled FROM acme.django_celery_beat_periodictask WHERE task = 'cloud.tasks.monitor'",
    );
    expect(cloudTasks.every((t) => t.enabled)).toBe(true);

    // act: the second run
    const afterFirst = await legacy.checksums();
    const second = await backfill({});

    // assert
    expect(second.report?.totals).toMatchObject({ migrated: 0, already_migrated: MIGRATED, skipped: SKIPPED, failed: 0 });
    expect(
      second
        .report!.tenants.flatMap((t) => t.rows)
        .filter((r) => r.outcome !== 'skipped')
        .every((r) => r.outcome === 'already_migrated' && r.notes === undefined),
    ).toBe(true);
    expect(await rows()).toEqual(stored);
    expect(await legacy.checksums()).toEqual(afterFirst);
  });

  it('migrates each legacy row exactly once when two runs start at once', async () => {
    // act
    const [a, b] = await Promise.all([backfill({}), backfill({})]);

    // assert
    expect(a.report!.totals.migrated + b.report!.totals.migrated).toBe(MIGRATED);
    expect(a.report!.totals.failed + b.report!.totals.failed).toBe(0);
    const stored = await rows();
    expect(stored).toHaveLength(MIGRATED);
    const keys = stored.map((r) => JSON.stringify([r.tenant, r.scope.source_legacy_model, r.scope.source_legacy_id]));
    expect(new Set(keys).size).toBe(MIGRATED);
  });

  it('completes a run killed between creating a schedule and disabling its task: disables it, creates nothing', async () => {
    // prepare: a run whose first legacy write never returns, abandoned like a killed process
    const source = makePostgresLegacySource({ connectionString: legacy.url });
    let reachedDisable: () => void = () => {};
    const atDisable = new Promise<void>((resolve) => (reachedDisable = resolve));
    const killed = makeBackfillService({
      source: {
        ...source,
        setTaskEnabled: () => {
          reachedDisable();
          return new Promise<boolean>(() => {});
        },
      },
      markers: service.runtime.legacyMarkers,
      schedules: service.runtime.schedules,
      clock: service.clock,
      ids: makeUlidGenerator(),
      logger: silentLogger,
      concurrency: 1,
    });
    void killed.run({ dryRun: false, tenant: 'globex' });
    await atDisable;
    const [created] = await rows();
    expect(
      (await legacy.query<{ enabled: boolean }>('SELECT enabled FROM globex.django_celery_beat_periodictask WHERE id = 1'))[0].enabled,
    ).toBe(true);

    // act
    const next = await backfill({ tenant: 'globex' });

    // assert
    const resumed = next.report!.tenants[0].rows[0];
    expect(resumed).toMatchObject({
      outcome: 'already_migrated',
      schedule_id: created.id,
      notes: ['disabled the legacy task an earlier run left enabled'],
    });
    expect(next.report!.totals).toMatchObject({ migrated: 4, already_migrated: 1, failed: 0 });
    expect(
      (await rows()).filter((r) => r.scope.source_legacy_id === '1' && r.scope.source_legacy_model === 'secretscan.schedule'),
    ).toHaveLength(1);
    expect(
      (await legacy.query<{ enabled: boolean }>('SELECT enabled FROM globex.django_celery_beat_periodictask WHERE id = 1'))[0].enabled,
    ).toBe(false);
    await source.close();
  });

  it('limits the work to one schema with --tenant and prints the summary on stdout', async () => {
    // prepare
    const before = await legacy.checksums();

    // act
    const result = await cli(['--tenant', 'initech', '--format', 'json']);

    // assert
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BackfillReport;
    expect(report.tenants.map((t) => t.tenant)).toEqual(['initech']);
    expect(new Set((await rows()).map((r) => r.tenant))).toEqual(new Set(['initech']));
    const after = await legacy.checksums();
    for (const [table, sum] of Object.entries(before)) if (!table.startsWith('initech.')) expect(after[table]).toEqual(sum);
    expect(result.stderr).toContain('[1/1] initech: 5 migrated, 0 already migrated, 2 skipped, 0 failed');
  });

  it('exits 2 for an unknown tenant or no database URL, and changes nothing', async () => {
    // prepare
    const before = await legacy.checksums();

    // act
    const [unknown, noUrl] = await Promise.all([cli(['--tenant', 'umbrella']), cli(['--dry-run'], { LEGACY_DATABASE_URL: '' })]);

    // assert
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tenant "umbrella"');
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('no database URL');
    expect(await legacy.checksums()).toEqual(before);
    expect(await rows()).toEqual([]);
  });

  it('prints a readable text summary with every row and its reason', async () => {
    // act
    await backfill({ tenant: 'globex' });
    const second = await cli(['--tenant', 'globex']);

    // assert
    expect(second.stderr).toBe('[1/1] globex: 0 migrated, 5 already migrated, 1 skipped, 0 failed\n');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('1 tenant(s): 0 migrated, 5 already migrated, 1 skipped, 0 failed');
    expect(second.stdout.match(/already migrated +secretscan\.schedule|already migrated +network\.continuousschedule/g)).toHaveLength(5);
    expect(second.stdout).toMatch(/skipped +secretscan\.schedule 4 "One-off audit": periodic task 7 is one-off/);
  });

  it('rolls back with two commands: --rollback removes the schedules, its SQL re-enables exactly the disabled tasks', async () => {
    // prepare
    const original = await legacy.checksums({ django_celery_beat_periodictasks: ['last_update'] });
    await backfill({ tenant: 'globex' });

    // act: command 1, then command 2 (psql -1 -f, here the same SQL in one transaction)
    const undo = await cli(['--rollback', '--tenant', 'globex']);
    await legacy.db.transaction(async (tx) => {
      await tx.exec(undo.stdout);
    });

    // assert
    expect(undo.code).toBe(0);
    expect(undo.stderr).toContain('globex: 5 migrated schedule(s) removed, 4 legacy task(s) to re-enable');
    expect(undo.stdout).toContain(
      'UPDATE "globex".django_celery_beat_periodictask SET enabled = true WHERE enabled = false AND id IN (1, 2, 4, 5);',
    );
    expect(await rows()).toEqual([]);
    expect(await service.runtime.scheduler.list()).toEqual([]);
    expect(await markerCount()).toBe(0);
    expect(await legacy.checksums({ django_celery_beat_periodictasks: ['last_update'] })).toEqual(original);
    expect((await backfill({ tenant: 'globex' })).report?.totals.migrated).toBe(5);
  });

  it('skips a row whose scan type has no runner here, saying so, and leaves its legacy task enabled (DESIGN §9)', async () => {
    await service.stop();
    service = await startTestService({ allowPrivateTargets: true, runners: engineLessRunners(['email_security', 'secret_scan']) });

    const { report } = await backfill({ tenant: 'globex' });

    const reported = report?.tenants.flatMap((tenant) => tenant.rows) ?? [];
    const vm = reported.filter((row) => row.model === 'network.continuousschedule');
    expect(vm.length).toBeGreaterThan(0);
    for (const row of vm) {
      expect(row.outcome).toBe('skipped');
      expect(row.reason).toContain('has no runner in this deployment');
    }
    const tasks = await legacy.query<{ enabled: boolean }>(
      'SELECT t.enabled FROM globex.network_continuousschedule n JOIN globex.django_celery_beat_periodictask t ON t.id = n.periodic_task_id',
    );
    expect(tasks.length).toBe(vm.length);
    expect(tasks.every((task) => task.enabled)).toBe(true);
    expect((await rows()).filter((row) => row.scan_type === 'vm')).toEqual([]);
  });

  it("fires a backfilled schedule through the local runtime's clock like any other", async () => {
    // prepare
    await backfill({ tenant: 'globex' });
    const core = (await rows()).find((r) => r.target === 'https://github.com/globex/core')!;

    // act: the next 02:00 UTC after 2026-03-02T10:00Z
    service.clock.set('2026-03-03T02:00:30Z');
    await service.runtime.drain();

    // assert
    const token = await service.token('globex', 'viewer');
    const scans = await service.call(`/api/scans/?schedule_id=${core.id}`, { token });
    expect(scans.body.items).toHaveLength(1);
    expect(scans.body.items[0]).toMatchObject({
      schedule_id: core.id,
      trigger: 'cron',
      scheduled_time: '2026-03-03T02:00:00Z',
      scan_type: 'secret_scan',
      target: core.target,
    });
    const schedule = await service.call(`/api/scans/schedules/${core.id}/`, { token });
    expect(schedule.body.last_scan_id).toBe(scans.body.items[0].id);
  });
});
