import { beforeEach, describe, expect, it } from 'vitest';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { LocalTriggerScheduler } from '../../shared/adapters/local/local-trigger-scheduler.ts';
import type { ArtifactRecord } from '../../shared/domain/artifact.ts';
import { ConflictError, NotFoundError, QuotaExceededError, TriggerUnavailableError, ValidationError } from '../../shared/domain/errors.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { makeArtifactReferences } from '../../shared/services/artifact-references.ts';
import { makeReconcileService } from '../../shared/services/reconcile-service.ts';
import { makeScheduleService } from '../../shared/services/schedule-service.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
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
  const artifacts = new InMemoryArtifactRepository();
  const service = makeScheduleService({
    repo: record(calls, 'repo', repo),
    triggers: record(calls, 'triggers', triggers),
    clock,
    ids,
    logger: silentLogger,
    quota,
    artifacts: makeArtifactReferences(artifacts, clock),
  });
  return { clock, repo, scheduler, triggers, service, calls, artifacts };
}

const daily = { name: 'n', scan_type: 'email_security', target: 'example.com', cadence: 'daily' } as const;

describe('schedule service', () => {
  let world: ReturnType<typeof setup>;
  beforeEach(() => {
    world = setup();
  });

  it('provisions the trigger before storing the row', async () => {
    const created = await world.service.create('acme', daily);

    // Then it settles: the row read again (unchanged), so the trigger synced before the write stands.
    expect(world.calls).toEqual(['repo.count', 'triggers.sync', 'repo.create', 'repo.get']);
    expect(world.repo.rows.size).toBe(1);
    expect(await world.scheduler.list()).toEqual([
      { name: created.id, tenant: 'acme', scheduleId: created.id, expression: 'cron(0 2 * * ? *)', timezone: 'UTC', queue: 'standard' },
    ]);
  });

  it('stores nothing when provisioning the trigger fails, and leaves no trigger behind', async () => {
    world.triggers.failures = ['half'];

    await expect(world.service.create('acme', { ...daily, cadence: 'custom', cron_expression: '0 0 1,15 * 1' })).rejects.toBeInstanceOf(
      TriggerUnavailableError,
    );

    // The failed sync is followed by the settle (read the row, sync to what it asks: none, read again); never a create.
    expect(world.calls).toEqual(['repo.count', 'triggers.sync', 'repo.get', 'triggers.sync', 'repo.get']);
    expect(world.repo.rows.size).toBe(0);
    expect(await world.scheduler.list()).toEqual([]);
  });

  it('changes the trigger before writing the row on a patch, and removes it before deleting the row', async () => {
    const created = await world.service.create('acme', daily);
    world.calls.length = 0;

    await world.service.update('acme', created.id, { cadence: 'weekly' });
    await world.service.remove('acme', created.id);

    expect(world.calls).toEqual([
      ...['repo.get', 'triggers.sync', 'repo.update', 'repo.get'],
      ...['repo.get', 'triggers.sync', 'repo.delete', 'repo.get'],
    ]);
  });

  it('syncs the trigger again when the row moved between the write and the settle', async () => {
    const created = await world.service.create('acme', daily);
    const read = world.repo.get.bind(world.repo);
    let reads = 0;
    // A concurrent PATCH to weekly lands right after this one's write: the settle's read sees it.
    world.repo.get = async (tenant: string, id: string) => {
      if (++reads === 2) {
        const key = [...world.repo.rows.keys()][0];
        const row = world.repo.rows.get(key)!;
        const weekly = { expressions: ['cron(0 3 ? * MON *)'], timezone: 'UTC' };
        world.repo.rows.set(key, { ...row, cadence: 'weekly', trigger_definition: weekly, version: row.version + 1 });
      }
      return read(tenant, id);
    };

    await world.service.update('acme', created.id, { name: 'renamed', cadence: 'monthly' });

    expect((await world.scheduler.list()).map((trigger) => trigger.expression)).toEqual(['cron(0 3 ? * MON *)']);
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

const REPORT = 'art_01HZ00000000000000000000RA';
const OTHER_REPORT = 'art_01HZ00000000000000000000RB';
const MESSAGE = 'art_01HZ00000000000000000000EM';

/** An artifact row as the artifact service leaves it once checked. */
function artifact(id: string, overrides: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return {
    id,
    tenant: 'acme',
    purpose: 'rua',
    filename: 'report.xml',
    size: 100,
    content_type: 'application/xml',
    status: 'ready',
    sha256: 'ab'.repeat(32),
    reason: null,
    created_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-31T10:00:00.000Z',
    ...overrides,
  };
}

/** The ValidationError's field issues, or a failure when the call succeeds or throws anything else. */
async function issuesOf(call: Promise<unknown>): Promise<Array<{ field: string; message: string }>> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).details;
}

describe("schedule service: the scope's artifact ids", () => {
  let world: ReturnType<typeof setup>;
  beforeEach(async () => {
    world = setup();
    await world.artifacts.create(artifact(REPORT));
    await world.artifacts.create(artifact(OTHER_REPORT));
    await world.artifacts.create(artifact(MESSAGE, { purpose: 'eml', filename: 'message.eml', content_type: 'message/rfc822' }));
  });

  it('creates a schedule whose rua and header ids are ready artifacts of the tenant', async () => {
    const created = await world.service.create('acme', { ...daily, scope: { rua: [REPORT, OTHER_REPORT], header: MESSAGE } });

    expect(created.scope).toEqual({ rua: [REPORT, OTHER_REPORT], header: MESSAGE });
    expect(world.repo.rows.size).toBe(1);
    expect(await world.scheduler.list()).toHaveLength(1);
  });

  it("refuses another tenant's artifact as not found, storing nothing and creating no trigger", async () => {
    await world.artifacts.create(artifact('art_01HZ00000000000000000000GX', { tenant: 'globex' }));

    const issues = await issuesOf(world.service.create('acme', { ...daily, scope: { rua: [REPORT, 'art_01HZ00000000000000000000GX'] } }));

    expect(issues).toEqual([{ field: 'scope.rua.1', message: 'artifact art_01HZ00000000000000000000GX not found' }]);
    expect(world.repo.rows.size).toBe(0);
    expect(world.calls).toEqual([]);
    expect(await world.scheduler.list()).toEqual([]);
  });

  it('refuses a pending or rejected artifact, with its reason', async () => {
    await world.artifacts.create(artifact('art_01HZ00000000000000000000PE', { status: 'pending', sha256: null }));
    await world.artifacts.create(
      artifact('art_01HZ00000000000000000000RJ', { purpose: 'eml', status: 'rejected', reason: 'not an RFC 5322 message' }),
    );

    const issues = await issuesOf(
      world.service.create('acme', {
        ...daily,
        scope: { rua: ['art_01HZ00000000000000000000PE'], header: 'art_01HZ00000000000000000000RJ' },
      }),
    );

    expect(issues).toEqual([
      { field: 'scope.rua.0', message: 'artifact art_01HZ00000000000000000000PE is pending, not ready' },
      { field: 'scope.header', message: 'artifact art_01HZ00000000000000000000RJ is rejected (not an RFC 5322 message), not ready' },
    ]);
    expect(world.repo.rows.size).toBe(0);
    expect(await world.scheduler.list()).toEqual([]);
  });

  it('refuses an artifact of the wrong purpose on each field', async () => {
    const issues = await issuesOf(world.service.create('acme', { ...daily, scope: { rua: [MESSAGE], header: REPORT } }));

    expect(issues).toEqual([
      { field: 'scope.rua.0', message: `artifact ${MESSAGE} has purpose eml, not rua` },
      { field: 'scope.header', message: `artifact ${REPORT} has purpose rua, not eml` },
    ]);
    expect(world.repo.rows.size).toBe(0);
  });

  it('reports a bad artifact together with the other field problems in one error', async () => {
    const issues = await issuesOf(
      world.service.create('acme', { ...daily, cadence: 'custom', cron_expression: '* * * *', scope: { header: REPORT } }),
    );

    expect(issues.map((issue) => issue.field).sort()).toEqual(['cron_expression', 'scope.header']);
  });

  it('refuses an artifact past its expiry (the bucket has deleted its bytes), and still renames a schedule that names it', async () => {
    const created = await world.service.create('acme', { ...daily, scope: { rua: [REPORT] } });
    world.clock.set('2026-03-31T10:00:00.000Z');

    const issues = await issuesOf(world.service.create('acme', { ...daily, scope: { rua: [OTHER_REPORT] } }));
    const renamed = await world.service.update('acme', created.id, { name: 'renamed' });

    expect(issues).toEqual([
      { field: 'scope.rua.0', message: `artifact ${OTHER_REPORT} expired at 2026-03-31T10:00:00.000Z; upload the file again` },
    ]);
    expect(world.repo.rows.size).toBe(1);
    expect(renamed.name).toBe('renamed');
  });

  it('renames and toggles a schedule whose artifacts have since expired', async () => {
    const created = await world.service.create('acme', { ...daily, scope: { rua: [REPORT], header: MESSAGE } });
    world.artifacts.rows.clear();

    const renamed = await world.service.update('acme', created.id, { name: 'renamed', cadence: 'weekly' });
    const paused = await world.service.toggle('acme', created.id);
    const kept = await world.service.update('acme', created.id, { scope: { rua: [REPORT], header: MESSAGE, reputation: true } });

    expect(renamed).toMatchObject({ name: 'renamed', scope: { rua: [REPORT], header: MESSAGE } });
    expect(paused.enabled).toBe(false);
    expect(kept.scope).toEqual({ rua: [REPORT], header: MESSAGE, reputation: true });
  });

  it('checks the ids a patch changes, and leaves the row and trigger unchanged when they are refused', async () => {
    const created = await world.service.create('acme', { ...daily, scope: { rua: [REPORT] } });
    const before = JSON.stringify([...world.repo.rows.values()]);
    const triggersBefore = await world.scheduler.list();

    const issues = await issuesOf(
      world.service.update('acme', created.id, { cadence: 'weekly', scope: { rua: [REPORT, 'art_01HZ00000000000000000000NX'] } }),
    );

    expect(issues).toEqual([{ field: 'scope.rua.1', message: 'artifact art_01HZ00000000000000000000NX not found' }]);
    expect(JSON.stringify([...world.repo.rows.values()])).toBe(before);
    expect(await world.scheduler.list()).toEqual(triggersBefore);
  });

  it('checks a header a patch adds while leaving an expired rua list alone', async () => {
    const created = await world.service.create('acme', { ...daily, scope: { rua: [REPORT] } });
    world.artifacts.rows.delete(`acme/${REPORT}`);

    const refused = await issuesOf(world.service.update('acme', created.id, { scope: { rua: [REPORT], header: OTHER_REPORT } }));
    const updated = await world.service.update('acme', created.id, { scope: { rua: [REPORT], header: MESSAGE } });

    expect(refused).toEqual([{ field: 'scope.header', message: `artifact ${OTHER_REPORT} has purpose rua, not eml` }]);
    expect(updated.scope).toEqual({ rua: [REPORT], header: MESSAGE });
  });
});

describe('reconcile service', () => {
  it('deletes unreadable scheduler entries on a full run and leaves them alone for one tenant', async () => {
    const world = setup();
    const deleted: string[] = [];
    const unrecognised = {
      inventory: async () => ({
        triggers: await world.scheduler.list(),
        unrecognised: [{ name: 'stray', reason: 'input is not a fire message' }],
      }),
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
