import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/domain/errors.ts';
import { queuedJob, type ScanJobRecord } from '../../shared/domain/scan-job.ts';
import type { ScanFilter, ScanRepository } from '../../shared/ports/scan-repository.ts';
import { walkPages } from './page-walk.ts';

/** What a contract run needs from an adapter: an empty repository and how to dispose of it. */
export interface ScanRepositorySubject {
  repo: ScanRepository;
  cleanup?: () => Promise<void>;
}

/** A scan id that sorts by `n` (ULIDs sort by time; the listing is newest first). */
const scanId = (n: number) => `scan_01HZ${String(n).padStart(22, '0')}`;

/** A queued manual job of `tenant` whose id sorts by `n`. */
export function scanJobRecord(tenant: string, n: number, overrides: Partial<ScanJobRecord> = {}): ScanJobRecord {
  return {
    ...queuedJob({
      id: scanId(n),
      tenant,
      scan_type: 'email_security',
      target: 'example.com',
      targets: [],
      scope: {},
      source_type: 'manual',
      schedule_id: null,
      trigger: 'manual',
      scheduled_time: null,
      created_at: '2026-03-02T10:00:00.000Z',
      log: { file: `/tmp/${n}.log` },
    }),
    ...overrides,
  };
}

function allIds(repo: ScanRepository, tenant: string, filter: ScanFilter, limit: number) {
  return walkPages(repo.list.bind(repo), tenant, filter, limit, 20);
}

/**
 * Behaviour every ScanRepository must have. It runs on the DynamoDB adapter over dynalite and on the
 * in-memory fake the service tests use.
 */
export function describeScanRepositoryContract(name: string, makeSubject: () => Promise<ScanRepositorySubject>): void {
  describe(`ScanRepository contract: ${name}`, () => {
    let subject: ScanRepositorySubject;
    let repo: ScanRepository;

    beforeEach(async () => {
      subject = await makeSubject();
      repo = subject.repo;
    });

    afterEach(async () => {
      await subject.cleanup?.();
    });

    it('creates a job once: the same id again returns false and changes nothing', async () => {
      const first = scanJobRecord('acme', 1);

      const created = [await repo.create(first), await repo.create(scanJobRecord('acme', 1, { target: 'other.com' }))];

      expect(created).toEqual([true, false]);
      expect(await repo.get('acme', scanId(1))).toEqual(first);
      expect(await repo.get('globex', scanId(1))).toBeNull();
      expect(await repo.get('acme', scanId(2))).toBeNull();
    });

    it("lets exactly one of concurrent creates of a job id win: with the id derived from a fire, that is the fire's claim", async () => {
      const created = await Promise.all([1, 2, 3, 4].map((n) => repo.create(scanJobRecord('acme', 1, { target: `t${n}.example.com` }))));

      expect(created.filter(Boolean)).toHaveLength(1);
      const stored = await repo.get('acme', scanId(1));
      expect(stored?.target).toBe(`t${created.indexOf(true) + 1}.example.com`);
    });

    it("transitions only from the given states, and never a missing job or another tenant's", async () => {
      await repo.create(scanJobRecord('acme', 1));

      const started = await repo.transition('acme', scanId(1), ['queued'], { status: 'running', started_at: '2026-03-02T10:01:00.000Z' });
      const again = await repo.transition('acme', scanId(1), ['queued'], { status: 'running', started_at: '2026-03-02T10:02:00.000Z' });
      const otherTenant = await repo.transition('globex', scanId(1), ['running'], { status: 'failed' });
      const missing = await repo.transition('acme', scanId(2), ['queued', 'running'], { status: 'failed' });
      const finished = await repo.transition('acme', scanId(1), ['queued', 'running'], {
        status: 'succeeded',
        finished_at: '2026-03-02T10:03:00.000Z',
        finding_count: 2,
      });

      expect([started, again, otherTenant, missing, finished]).toEqual([true, false, false, false, true]);
      expect(await repo.get('acme', scanId(1))).toEqual({
        ...scanJobRecord('acme', 1),
        status: 'succeeded',
        started_at: '2026-03-02T10:01:00.000Z',
        finished_at: '2026-03-02T10:03:00.000Z',
        finding_count: 2,
      });
      expect(await repo.get('acme', scanId(2))).toBeNull();
      expect(await repo.get('globex', scanId(1))).toBeNull();
    });

    it('lists newest first in pages; the last page has no cursor and none is empty', async () => {
      for (const n of [1, 2, 3, 4, 5]) await repo.create(scanJobRecord('acme', n));
      await repo.create(scanJobRecord('globex', 6));

      const byTwo = await allIds(repo, 'acme', {}, 2);
      const exact = await allIds(repo, 'acme', {}, 5);

      expect(byTwo.pages).toEqual([[5, 4], [3, 2], [1]].map((ids) => ids.map(scanId)));
      expect(byTwo.cursors.map((cursor) => cursor === null)).toEqual([false, false, true]);
      expect(exact).toEqual({ pages: [[5, 4, 3, 2, 1].map(scanId)], cursors: [null] });
      expect(await repo.list('initech', {}, 10)).toEqual({ items: [], nextCursor: null });
    });

    it('filters by scan type, status, schedule and source, alone and together, across pages', async () => {
      await repo.create(scanJobRecord('acme', 1, { scan_type: 'ssl' }));
      await repo.create(scanJobRecord('acme', 2, { source_type: 'schedule', trigger: 'cron', schedule_id: 'sch_A', status: 'failed' }));
      await repo.create(scanJobRecord('acme', 3, { source_type: 'schedule', trigger: 'run_now', schedule_id: 'sch_A' }));
      await repo.create(scanJobRecord('acme', 4, { source_type: 'schedule', trigger: 'cron', schedule_id: 'sch_B', status: 'failed' }));
      await repo.create(scanJobRecord('acme', 5, { source_type: 'adversary', trigger: 'adversary', status: 'failed' }));
      await repo.create(scanJobRecord('acme', 6, { scan_type: 'ssl', status: 'failed' }));
      await repo.create(scanJobRecord('globex', 7, { scan_type: 'ssl', schedule_id: 'sch_A', status: 'failed' }));

      const ids = async (filter: ScanFilter) => (await allIds(repo, 'acme', filter, 1)).pages.flat();

      expect(await ids({ scanType: 'ssl' })).toEqual([6, 1].map(scanId));
      expect(await ids({ status: 'failed' })).toEqual([6, 5, 4, 2].map(scanId));
      expect(await ids({ scheduleId: 'sch_A' })).toEqual([3, 2].map(scanId));
      expect(await ids({ sourceType: 'schedule' })).toEqual([4, 3, 2].map(scanId));
      expect(await ids({ scheduleId: 'sch_A', status: 'failed' })).toEqual([2].map(scanId));
      expect(await ids({ scanType: 'email_security', status: 'failed', sourceType: 'adversary' })).toEqual([5].map(scanId));
      expect(await ids({ scanType: 'dast' })).toEqual([]);
    });

    it('filters by target in any case and as an IDN, with the other filters, across pages, never another tenant', async () => {
      await repo.create(scanJobRecord('acme', 1, { target: 'xn--bcher-kva.example' }));
      await repo.create(scanJobRecord('acme', 2, { target: 'other.example' }));
      await repo.create(scanJobRecord('acme', 3, { target: 'xn--bcher-kva.example', status: 'failed' }));
      await repo.create(scanJobRecord('acme', 4, { target: 'xn--bcher-kva.example', scan_type: 'ssl' }));
      await repo.create(
        scanJobRecord('acme', 5, { target: 'xn--bcher-kva.example', schedule_id: 'sch_A', source_type: 'schedule', trigger: 'cron' }),
      );
      await repo.create(scanJobRecord('globex', 6, { target: 'xn--bcher-kva.example' }));

      const ids = async (filter: ScanFilter) => (await allIds(repo, 'acme', filter, 1)).pages.flat();

      expect(await ids({ target: 'xn--bcher-kva.example' })).toEqual([5, 4, 3, 1].map(scanId));
      expect(await ids({ target: 'Bücher.Example' })).toEqual([5, 4, 3, 1].map(scanId));
      expect(await ids({ target: 'XN--BCHER-KVA.EXAMPLE', scanType: 'email_security' })).toEqual([5, 3, 1].map(scanId));
      expect(await ids({ target: 'bücher.example', status: 'failed' })).toEqual([3].map(scanId));
      expect(await ids({ target: 'bücher.example', scheduleId: 'sch_A' })).toEqual([5].map(scanId));
      expect(await ids({ target: 'nowhere.example' })).toEqual([]);
      // A cursor of one target's listing is refused in another target's.
      const byTarget = (await repo.list('acme', { target: 'bücher.example' }, 1)).nextCursor!;
      await expect(repo.list('acme', { target: 'other.example' }, 1, byTarget)).rejects.toBeInstanceOf(ValidationError);
    });

    it("refuses another tenant's cursor, a cursor of another listing and a made-up one with ValidationError", async () => {
      for (const n of [1, 2, 3])
        await repo.create(scanJobRecord('acme', n, { schedule_id: 'sch_A', source_type: 'schedule', trigger: 'cron' }));
      for (const n of [1, 2, 3]) await repo.create(scanJobRecord('globex', n));
      const plain = (await repo.list('acme', {}, 1)).nextCursor!;
      const bySchedule = (await repo.list('acme', { scheduleId: 'sch_A' }, 1)).nextCursor!;

      await expect(repo.list('globex', {}, 1, plain)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', { scheduleId: 'sch_B' }, 1, bySchedule)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', { scanType: 'email_security' }, 1, plain)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', {}, 1, scanId(2))).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', {}, 1, 'not-a-cursor')).rejects.toBeInstanceOf(ValidationError);
    });

    it('yields the unfinished jobs of every tenant, and only those', async () => {
      await repo.create(scanJobRecord('acme', 1));
      await repo.create(scanJobRecord('acme', 2, { status: 'running' }));
      await repo.create(scanJobRecord('acme', 3, { status: 'succeeded' }));
      await repo.create(scanJobRecord('globex', 4, { status: 'running' }));
      await repo.create(scanJobRecord('globex', 5, { status: 'failed' }));

      const unfinished: string[] = [];
      for await (const found of repo.listUnfinished()) unfinished.push(`${found.tenant}/${found.id}`);

      expect(unfinished.sort()).toEqual([`acme/${scanId(1)}`, `acme/${scanId(2)}`, `globex/${scanId(4)}`]);
    });
  });
}
