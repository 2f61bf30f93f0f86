import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, QuotaExceededError, ValidationError } from '../../shared/domain/errors.ts';
import type { ScheduleRecord } from '../../shared/domain/schedule.ts';
import type { ScheduleRepository } from '../../shared/ports/schedule-repository.ts';

/** What a contract run needs from an adapter: an empty repository and how to dispose of it. */
export interface ScheduleRepositorySubject {
  repo: ScheduleRepository;
  /**
   * Runs a create that dies just before its row is written, after whatever it writes first (the
   * adapter's gate claim), with no write of it reaching the store after that point: what a process
   * killed between two writes leaves behind.
   */
  createThatDies(record: ScheduleRecord, quota: number): Promise<void>;
  cleanup?: () => Promise<void>;
}

/** A schedule id that sorts by `n` (ULIDs sort by time; the listing is newest first). */
export function scheduleId(n: number): string {
  return `sch_01HZ${String(n).padStart(22, '0')}`;
}

export function scheduleRecord(tenant: string, n: number, overrides: Partial<ScheduleRecord> = {}): ScheduleRecord {
  return {
    id: scheduleId(n),
    tenant,
    version: 1,
    name: `schedule ${n}`,
    description: '',
    scan_type: 'email_security',
    target: 'example.com',
    targets: [],
    scope: {},
    cadence: 'daily',
    cron_expression: null,
    timezone: 'UTC',
    enabled: true,
    trigger_definition: { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' },
    last_run_at: null,
    last_run_status: 'never_run',
    last_scan_id: null,
    created_at: '2026-03-02T10:00:00.000Z',
    updated_at: '2026-03-02T10:00:00.000Z',
    ...overrides,
  };
}

const QUOTA = 100;

async function createAll(repo: ScheduleRepository, records: ScheduleRecord[], quota = QUOTA): Promise<void> {
  for (const record of records) await repo.create(record, quota);
}

/** Every page of a listing, following the cursor to the end. */
async function allPages(repo: ScheduleRepository, tenant: string, filter: Parameters<ScheduleRepository['list']>[1], limit: number) {
  const pages: { ids: string[]; nextCursor: string | null }[] = [];
  let cursor: string | undefined;
  do {
    const page = await repo.list(tenant, filter, limit, cursor);
    pages.push({ ids: page.items.map((item) => item.id), nextCursor: page.nextCursor });
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < 20);
  return pages;
}

async function collect(rows: AsyncIterable<ScheduleRecord>): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of rows) ids.push(`${row.tenant}/${row.id}`);
  return ids.sort();
}

/**
 * Behaviour every ScheduleRepository must have: the DynamoDB adapter (on dynalite) and the
 * in-memory fake the unit tests use. The adapter is the truth; when they differ, the fake is fixed.
 */
export function describeScheduleRepositoryContract(name: string, makeSubject: () => Promise<ScheduleRepositorySubject>): void {
  describe(`ScheduleRepository contract: ${name}`, () => {
    let subject: ScheduleRepositorySubject;
    let repo: ScheduleRepository;

    beforeEach(async () => {
      subject = await makeSubject();
      repo = subject.repo;
    });

    afterEach(async () => {
      await subject.cleanup?.();
    });

    describe('create and get', () => {
      it('returns what was created, field for field', async () => {
        const record = scheduleRecord('acme', 1, {
          description: 'nightly',
          targets: ['a.example.com'],
          scope: { reputation: false },
          cadence: 'custom',
          cron_expression: '0 3 * * 1',
          timezone: 'Europe/Paris',
        });

        await repo.create(record, QUOTA);

        expect(await repo.get('acme', record.id)).toEqual(record);
      });

      it("returns null for an unknown id and for another tenant's row", async () => {
        await repo.create(scheduleRecord('acme', 1), QUOTA);

        expect(await repo.get('acme', scheduleId(2))).toBeNull();
        expect(await repo.get('globex', scheduleId(1))).toBeNull();
      });

      it('refuses an id that exists with ConflictError, leaving the row and the count alone', async () => {
        const first = scheduleRecord('acme', 1);
        await repo.create(first, QUOTA);

        await expect(repo.create(scheduleRecord('acme', 1, { name: 'again' }), QUOTA)).rejects.toBeInstanceOf(ConflictError);

        expect(await repo.get('acme', first.id)).toEqual(first);
        expect(await repo.count('acme')).toBe(1);
      });

      it('lets two tenants hold the same id', async () => {
        await repo.create(scheduleRecord('acme', 1), QUOTA);

        await repo.create(scheduleRecord('globex', 1, { name: 'theirs' }), QUOTA);

        expect((await repo.get('acme', scheduleId(1)))?.name).toBe('schedule 1');
        expect((await repo.get('globex', scheduleId(1)))?.name).toBe('theirs');
      });
    });

    describe('quota', () => {
      it('refuses the create past the quota with QuotaExceededError and stores nothing', async () => {
        await createAll(repo, [scheduleRecord('acme', 1), scheduleRecord('acme', 2)], 2);

        await expect(repo.create(scheduleRecord('acme', 3), 2)).rejects.toBeInstanceOf(QuotaExceededError);

        expect(await repo.get('acme', scheduleId(3))).toBeNull();
        expect(await repo.count('acme')).toBe(2);
      });

      it('refuses past the quota even when the id exists (the quota is checked first)', async () => {
        await repo.create(scheduleRecord('acme', 1), 1);

        await expect(repo.create(scheduleRecord('acme', 1), 1)).rejects.toBeInstanceOf(QuotaExceededError);
      });

      it('counts per tenant: one tenant at its quota does not limit another', async () => {
        await repo.create(scheduleRecord('acme', 1), 1);

        await repo.create(scheduleRecord('globex', 2), 1);

        expect([await repo.count('acme'), await repo.count('globex'), await repo.count('initech')]).toEqual([1, 1, 0]);
      });

      it('frees a slot when a row is deleted', async () => {
        await createAll(repo, [scheduleRecord('acme', 1), scheduleRecord('acme', 2)], 2);

        await repo.delete('acme', scheduleId(1), 1);
        await repo.create(scheduleRecord('acme', 3), 2);

        expect(await repo.count('acme')).toBe(2);
      });

      it('never lets concurrent creates past the quota', async () => {
        await repo.create(scheduleRecord('acme', 1), 3);

        const outcomes = await Promise.allSettled([2, 3, 4, 5, 6, 7].map((n) => repo.create(scheduleRecord('acme', n), 3)));

        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
        expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason)).toEqual(
          Array.from({ length: 4 }, () => expect.any(QuotaExceededError)),
        );
        expect(await repo.count('acme')).toBe(3);
        expect(await collect(repo.listAll('acme'))).toHaveLength(3);
      });

      it('does not count a create refused as a duplicate', async () => {
        await repo.create(scheduleRecord('acme', 1), 2);

        await expect(repo.create(scheduleRecord('acme', 1), 2)).rejects.toBeInstanceOf(ConflictError);
        await repo.create(scheduleRecord('acme', 2), 2);

        expect(await repo.count('acme')).toBe(2);
      });

      it('counts exactly the rows after a create dies before its row is written, and frees its slot', async () => {
        await repo.create(scheduleRecord('acme', 1), 2);

        await subject.createThatDies(scheduleRecord('acme', 2, { created_at: '2026-03-02T10:01:00.000Z' }), 2);
        const countAfterCrash = await repo.count('acme');
        // The next create, once no create of the dead one's could still be running, gets the slot.
        await repo.create(scheduleRecord('acme', 3, { created_at: '2026-03-02T10:03:00.000Z' }), 2);

        expect(countAfterCrash).toBe(1);
        expect(await repo.get('acme', scheduleId(2))).toBeNull();
        expect(await repo.count('acme')).toBe(2);
        await expect(repo.create(scheduleRecord('acme', 4, { created_at: '2026-03-02T10:05:00.000Z' }), 2)).rejects.toBeInstanceOf(
          QuotaExceededError,
        );
      });

      it('lets the create that died be retried with the same id at once (the backfill resumes so)', async () => {
        await repo.create(scheduleRecord('acme', 1), 2);
        await subject.createThatDies(scheduleRecord('acme', 2), 2);

        await repo.create(scheduleRecord('acme', 2), 2);

        expect(await repo.count('acme')).toBe(2);
      });
    });

    describe('update and delete', () => {
      it('writes the editable fields when the stored version is one less, and keeps the run fields and created_at', async () => {
        const stored = scheduleRecord('acme', 1);
        await repo.create(stored, QUOTA);
        await repo.recordRun('acme', stored.id, {
          last_run_at: '2026-03-02T11:00:00.000Z',
          last_run_status: 'success',
          last_scan_id: 'scan_01',
        });

        await repo.update({
          ...stored,
          version: 2,
          name: 'renamed',
          enabled: false,
          scan_type: 'ssl',
          updated_at: '2026-03-02T12:00:00.000Z',
          // Stale copies of fields update() must not write.
          last_run_at: null,
          last_run_status: 'never_run',
          last_scan_id: null,
          created_at: '2030-01-01T00:00:00.000Z',
        });

        expect(await repo.get('acme', stored.id)).toEqual({
          ...stored,
          version: 2,
          name: 'renamed',
          enabled: false,
          scan_type: 'ssl',
          updated_at: '2026-03-02T12:00:00.000Z',
          last_run_at: '2026-03-02T11:00:00.000Z',
          last_run_status: 'success',
          last_scan_id: 'scan_01',
        });
      });

      it('refuses a stale version with ConflictError and a missing row with NotFoundError', async () => {
        const stored = scheduleRecord('acme', 1);
        await repo.create(stored, QUOTA);

        await expect(repo.update({ ...stored, version: 3, name: 'skipped a version' })).rejects.toBeInstanceOf(ConflictError);
        await expect(repo.update({ ...stored, version: 1, name: 'same version' })).rejects.toBeInstanceOf(ConflictError);
        await expect(repo.update(scheduleRecord('acme', 2, { version: 2 }))).rejects.toBeInstanceOf(NotFoundError);
        await expect(repo.update({ ...stored, tenant: 'globex', version: 2 })).rejects.toBeInstanceOf(NotFoundError);

        expect(await repo.get('acme', stored.id)).toEqual(stored);
      });

      it("deletes at the expected version only: ConflictError when stale, NotFoundError when missing or another tenant's", async () => {
        await repo.create(scheduleRecord('acme', 1), QUOTA);

        await expect(repo.delete('acme', scheduleId(1), 2)).rejects.toBeInstanceOf(ConflictError);
        await expect(repo.delete('globex', scheduleId(1), 1)).rejects.toBeInstanceOf(NotFoundError);
        await expect(repo.delete('acme', scheduleId(9), 1)).rejects.toBeInstanceOf(NotFoundError);
        expect(await repo.count('acme')).toBe(1);

        await repo.delete('acme', scheduleId(1), 1);

        expect(await repo.get('acme', scheduleId(1))).toBeNull();
        expect(await repo.count('acme')).toBe(0);
        await expect(repo.delete('acme', scheduleId(1), 1)).rejects.toBeInstanceOf(NotFoundError);
        expect(await repo.count('acme')).toBe(0);
      });
    });

    describe('run fields', () => {
      const running = (at: string, scanId: string) => ({ last_run_at: at, last_run_status: 'running' as const, last_scan_id: scanId });

      it('recordRun sets the run fields unless the row shows a newer scan or is gone', async () => {
        await repo.create(scheduleRecord('acme', 1), QUOTA);

        const first = await repo.recordRun('acme', scheduleId(1), running('2026-03-02T11:00:00.000Z', 'scan_05'));
        const same = await repo.recordRun('acme', scheduleId(1), running('2026-03-02T11:01:00.000Z', 'scan_05'));
        const older = await repo.recordRun('acme', scheduleId(1), running('2026-03-02T10:00:00.000Z', 'scan_04'));
        const gone = await repo.recordRun('acme', scheduleId(2), running('2026-03-02T11:00:00.000Z', 'scan_09'));
        const otherTenant = await repo.recordRun('globex', scheduleId(1), running('2026-03-02T11:00:00.000Z', 'scan_09'));

        expect([first, same, older, gone, otherTenant]).toEqual([true, true, false, false, false]);
        expect(await repo.get('acme', scheduleId(1))).toMatchObject({ last_run_at: '2026-03-02T11:01:00.000Z', last_scan_id: 'scan_05' });
        expect(await repo.get('globex', scheduleId(1))).toBeNull();
      });

      it('startRun claims a strictly newer scan on an enabled row and returns the row as it now is', async () => {
        const stored = scheduleRecord('acme', 1);
        await repo.create(stored, QUOTA);
        await repo.create(scheduleRecord('acme', 2, { enabled: false }), QUOTA);

        const started = await repo.startRun('acme', stored.id, { last_run_at: '2026-03-02T11:00:00.000Z', last_scan_id: 'scan_05' });
        const redelivered = await repo.startRun('acme', stored.id, { last_run_at: '2026-03-02T11:00:00.000Z', last_scan_id: 'scan_05' });
        const older = await repo.startRun('acme', stored.id, { last_run_at: '2026-03-02T10:00:00.000Z', last_scan_id: 'scan_04' });
        const disabled = await repo.startRun('acme', scheduleId(2), { last_run_at: '2026-03-02T11:00:00.000Z', last_scan_id: 'scan_05' });
        const missing = await repo.startRun('acme', scheduleId(3), { last_run_at: '2026-03-02T11:00:00.000Z', last_scan_id: 'scan_05' });
        const otherTenant = await repo.startRun('globex', stored.id, { last_run_at: '2026-03-02T11:00:00.000Z', last_scan_id: 'scan_06' });

        expect(started).toEqual({
          ...stored,
          last_run_at: '2026-03-02T11:00:00.000Z',
          last_run_status: 'running',
          last_scan_id: 'scan_05',
        });
        expect([redelivered, older, disabled, missing, otherTenant]).toEqual([null, null, null, null, null]);
        expect(await repo.get('acme', stored.id)).toEqual(started);
      });

      it('records a finished job the row never heard of, but never one older than the row shows', async () => {
        await repo.create(scheduleRecord('acme', 1), QUOTA);
        await repo.startRun('acme', scheduleId(1), { last_run_at: '2026-03-02T11:00:00.000Z', last_scan_id: 'scan_05' });

        const stale = await repo.recordRun('acme', scheduleId(1), {
          ...running('2026-03-02T10:00:00.000Z', 'scan_04'),
          last_run_status: 'failed',
        });
        const current = await repo.recordRun('acme', scheduleId(1), {
          ...running('2026-03-02T11:00:00.000Z', 'scan_05'),
          last_run_status: 'success',
        });
        const unheardOf = await repo.recordRun('acme', scheduleId(1), {
          ...running('2026-03-02T12:00:00.000Z', 'scan_06'),
          last_run_status: 'partial',
        });

        expect([stale, current, unheardOf]).toEqual([false, true, true]);
        expect(await repo.get('acme', scheduleId(1))).toMatchObject({
          last_run_at: '2026-03-02T12:00:00.000Z',
          last_run_status: 'partial',
          last_scan_id: 'scan_06',
        });
      });
    });

    describe('list', () => {
      it('lists newest first in pages of `limit`; the last page has no cursor, and a full last page is not followed by an empty one', async () => {
        await createAll(
          repo,
          [1, 2, 3, 4, 5].map((n) => scheduleRecord('acme', n)),
        );

        const byTwo = await allPages(repo, 'acme', {}, 2);
        const byFive = await allPages(repo, 'acme', {}, 5);
        const byFifty = await allPages(repo, 'acme', {}, 50);

        expect(byTwo.map((page) => page.ids)).toEqual([[5, 4], [3, 2], [1]].map((ids) => ids.map(scheduleId)));
        expect(byTwo.map((page) => page.nextCursor === null)).toEqual([false, false, true]);
        expect(byFive).toEqual([{ ids: [5, 4, 3, 2, 1].map(scheduleId), nextCursor: null }]);
        expect(byFifty).toEqual(byFive);
      });

      it('ends exactly at a page boundary without an empty page', async () => {
        await createAll(
          repo,
          [1, 2, 3, 4].map((n) => scheduleRecord('acme', n)),
        );

        const pages = await allPages(repo, 'acme', {}, 2);

        expect(pages.map((page) => page.ids)).toEqual(
          [
            [4, 3],
            [2, 1],
          ].map((ids) => ids.map(scheduleId)),
        );
        expect(pages[1].nextCursor).toBeNull();
      });

      it('returns an empty page with no cursor for a tenant with no rows', async () => {
        await repo.create(scheduleRecord('acme', 1), QUOTA);

        expect(await repo.list('globex', {}, 10)).toEqual({ items: [], nextCursor: null });
      });

      it('returns whole records', async () => {
        const record = scheduleRecord('acme', 1, { description: 'd', targets: ['x.example.com'], last_scan_id: null });
        await repo.create(record, QUOTA);

        expect((await repo.list('acme', {}, 10)).items).toEqual([record]);
      });

      it('filters by scan type, by enabled, and by both, across pages', async () => {
        await createAll(repo, [
          scheduleRecord('acme', 1, { scan_type: 'ssl' }),
          scheduleRecord('acme', 2, { scan_type: 'ssl', enabled: false }),
          scheduleRecord('acme', 3),
          scheduleRecord('acme', 4, { scan_type: 'ssl' }),
          scheduleRecord('acme', 5, { enabled: false }),
          scheduleRecord('acme', 6, { scan_type: 'ssl' }),
          scheduleRecord('globex', 7, { scan_type: 'ssl' }),
        ]);

        const ids = async (filter: Parameters<ScheduleRepository['list']>[1]) =>
          (await allPages(repo, 'acme', filter, 2)).flatMap((page) => page.ids);

        expect(await ids({ scanType: 'ssl' })).toEqual([6, 4, 2, 1].map(scheduleId));
        expect(await ids({ enabled: false })).toEqual([5, 2].map(scheduleId));
        expect(await ids({ enabled: true })).toEqual([6, 4, 3, 1].map(scheduleId));
        expect(await ids({ scanType: 'ssl', enabled: true })).toEqual([6, 4, 1].map(scheduleId));
        expect(await ids({ scanType: 'dast' })).toEqual([]);
      });

      it('reflects an update in the filtered listings (a toggled row moves between enabled and disabled)', async () => {
        const stored = scheduleRecord('acme', 1);
        await repo.create(stored, QUOTA);

        await repo.update({ ...stored, version: 2, enabled: false, scan_type: 'ssl' });

        expect((await repo.list('acme', { enabled: true }, 10)).items).toEqual([]);
        expect((await repo.list('acme', { enabled: false }, 10)).items.map((row) => row.id)).toEqual([stored.id]);
        expect((await repo.list('acme', { scanType: 'email_security' }, 10)).items).toEqual([]);
        expect((await repo.list('acme', { scanType: 'ssl' }, 10)).items.map((row) => row.id)).toEqual([stored.id]);
      });

      it("refuses another tenant's cursor with ValidationError on the cursor field", async () => {
        await createAll(
          repo,
          [1, 2, 3].map((n) => scheduleRecord('acme', n)),
        );
        await createAll(
          repo,
          [1, 2, 3].map((n) => scheduleRecord('globex', n)),
        );
        const { nextCursor } = await repo.list('acme', {}, 1);

        const error = await repo.list('globex', {}, 1, nextCursor!).catch((caught: unknown) => caught);

        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).details.map((issue) => issue.field)).toEqual(['cursor']);
      });

      it.each([
        ['not base64 JSON', '%%%'],
        ['an id', scheduleId(2)],
        ['empty JSON', Buffer.from('{}').toString('base64url')],
        [
          "hand-made to point into another tenant's partition",
          Buffer.from(JSON.stringify({ v: 1, t: 'acme', i: '', k: { PK: 'T#globex', SK: `SCH#${scheduleId(2)}` } })).toString('base64url'),
        ],
      ])('refuses a cursor that is %s with ValidationError', async (_kind, cursor) => {
        await createAll(
          repo,
          [1, 2, 3].map((n) => scheduleRecord('acme', n)),
        );

        await expect(repo.list('acme', {}, 1, cursor)).rejects.toBeInstanceOf(ValidationError);
      });

      it('refuses a cursor of one listing in another (it cannot switch filters midway)', async () => {
        await createAll(
          repo,
          [1, 2, 3].map((n) => scheduleRecord('acme', n)),
        );
        await createAll(
          repo,
          [4, 5, 6].map((n) => scheduleRecord('acme', n, { enabled: false, scan_type: 'ssl' })),
        );
        const plain = (await repo.list('acme', {}, 1)).nextCursor!;
        const enabled = (await repo.list('acme', { enabled: true }, 1)).nextCursor!;
        const byType = (await repo.list('acme', { scanType: 'ssl' }, 1)).nextCursor!;

        await expect(repo.list('acme', { enabled: false }, 1, enabled)).rejects.toBeInstanceOf(ValidationError);
        await expect(repo.list('acme', { enabled: true }, 1, plain)).rejects.toBeInstanceOf(ValidationError);
        await expect(repo.list('acme', { scanType: 'email_security' }, 1, byType)).rejects.toBeInstanceOf(ValidationError);
        await expect(repo.list('acme', {}, 1, byType)).rejects.toBeInstanceOf(ValidationError);
      });

      it('keeps a cursor valid when rows are added ahead of it, and does not repeat rows', async () => {
        await createAll(
          repo,
          [1, 2, 3, 4].map((n) => scheduleRecord('acme', n)),
        );
        const first = await repo.list('acme', {}, 2);

        await repo.create(scheduleRecord('acme', 9), QUOTA);
        const second = await repo.list('acme', {}, 2, first.nextCursor!);

        expect(second).toEqual({ items: [2, 1].map((n) => scheduleRecord('acme', n)), nextCursor: null });
      });
    });

    describe('listAll', () => {
      it('yields every row of one tenant, or of all tenants', async () => {
        await createAll(repo, [scheduleRecord('acme', 1), scheduleRecord('acme', 2), scheduleRecord('globex', 3)]);

        expect(await collect(repo.listAll('acme'))).toEqual([`acme/${scheduleId(1)}`, `acme/${scheduleId(2)}`]);
        expect(await collect(repo.listAll())).toEqual([`acme/${scheduleId(1)}`, `acme/${scheduleId(2)}`, `globex/${scheduleId(3)}`]);
        expect(await collect(repo.listAll('initech'))).toEqual([]);
      });
    });
  });
}
