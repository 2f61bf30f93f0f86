import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../shared/domain/errors.ts';
import type { IssueFilter, IssueRepository } from '../../shared/ports/issue-repository.ts';
import { issueRecord as issue } from '../helpers/issue-records.ts';
import { walkPages } from './page-walk.ts';

export interface IssueRepositorySubject {
  repo: IssueRepository;
  cleanup?: () => Promise<void>;
}

const NOW = '2026-03-10T00:00:00.000Z';
const idOf = (n: number) => issue('x', n).id;
const ids = (...ns: number[]) => ns.map(idOf);

/**
 * Behaviour every IssueRepository must have: run on the DynamoDB adapter over dynalite (the truth)
 * and on the in-memory fake the service tests use.
 */
export function describeIssueRepositoryContract(name: string, makeSubject: () => Promise<IssueRepositorySubject>): void {
  describe(`IssueRepository contract: ${name}`, () => {
    let subject: IssueRepositorySubject;
    let repo: IssueRepository;
    const listed = async (filter: Omit<IssueFilter, 'now'>, limit = 2) =>
      (await walkPages(repo.list.bind(repo), 'acme', { now: NOW, ...filter }, limit, 100)).pages.flat();

    beforeEach(async () => {
      subject = await makeSubject();
      repo = subject.repo;
    });
    afterEach(async () => {
      await subject.cleanup?.();
    });

    it('stores issues whole, rewrites them in place, and keeps tenants apart', async () => {
      const first = issue('acme', 1);
      await repo.save('acme', [first, issue('acme', 2)]);
      await repo.save('acme', [{ ...first, occurrence_count: 2, version: 2 }]);

      expect(await repo.get('acme', first.id)).toEqual({ ...first, occurrence_count: 2, version: 2 });
      expect(await repo.get('globex', first.id)).toBeNull();
      expect((await repo.getMany('acme', [first.id, idOf(2), idOf(3), first.id])).map((found) => found.id).sort()).toEqual(
        ids(1, 2).sort(),
      );
      expect(await repo.getMany('globex', [first.id])).toEqual([]);
    });

    it('writes more than one batch (25 a request)', async () => {
      await repo.save(
        'acme',
        Array.from({ length: 60 }, (_, i) => issue('acme', i + 1)),
      );

      expect((await listed({}, 200)).length).toBe(60);
    });

    it('finds every issue of one target (in any spelling), of every scan type and status, and only those', async () => {
      await repo.save('acme', [
        issue('acme', 1),
        issue('acme', 2, { status: 'resolved' }),
        issue('acme', 3, { status: 'false_positive' }),
        issue('acme', 4, { target: 'EXAMPLE.com' }),
        issue('acme', 5, { scan_type: 'ssl' }),
        issue('acme', 6, { target: 'other.com' }),
      ]);
      await repo.save('globex', [issue('globex', 7)]);

      const found = await repo.ofTarget('acme', 'example.com');

      // Every scan type's: one issue per problem, whichever scan type saw it (DESIGN §15).
      expect(found.map((item) => item.id).sort()).toEqual(ids(1, 2, 3, 4, 5).sort());
    });

    it('lists by severity, then newest last seen, in pages that miss and repeat nothing', async () => {
      await repo.save('acme', [
        issue('acme', 1, { severity: 'low' }),
        issue('acme', 2, { severity: 'critical' }),
        issue('acme', 3, { severity: 'low' }),
        issue('acme', 4, { severity: 'medium', status: 'resolved' }),
        issue('acme', 5, { severity: 'critical', status: 'false_positive' }),
        issue('acme', 6, { severity: 'info' }),
      ]);
      await repo.save('globex', [issue('globex', 9, { severity: 'critical' })]);

      expect(await listed({}, 1)).toEqual(ids(5, 2, 4, 3, 1, 6));
      expect(await listed({}, 4)).toEqual(ids(5, 2, 4, 3, 1, 6));
      expect(await listed({}, 50)).toEqual(ids(5, 2, 4, 3, 1, 6));
      expect(await repo.list('initech', { now: NOW }, 10)).toEqual({ items: [], nextCursor: null });
      const whole = await repo.list('acme', { now: NOW }, 50);
      expect(whole.nextCursor).toBeNull();
    });

    it('filters by status, where an accepted risk past its until counts as open', async () => {
      await repo.save('acme', [
        issue('acme', 1),
        issue('acme', 2, { status: 'accepted_risk', status_until: '2026-03-09T00:00:00.000Z' }),
        issue('acme', 3, { status: 'accepted_risk', status_until: '2026-04-01T00:00:00.000Z' }),
        issue('acme', 4, { status: 'accepted_risk', status_until: null }),
        issue('acme', 5, { status: 'resolved' }),
        issue('acme', 6, { status: 'false_positive' }),
      ]);

      expect(await listed({ status: 'open' })).toEqual(ids(2, 1));
      expect(await listed({ status: 'accepted_risk' })).toEqual(ids(4, 3));
      expect(await listed({ status: 'resolved' })).toEqual(ids(5));
      expect(await listed({ status: 'false_positive' })).toEqual(ids(6));
      expect(await listed({ status: 'open', target: 'example.com' })).toEqual(ids(2, 1));
      expect(await listed({ status: 'accepted_risk', ruleId: 'mailscan.spf.missing' })).toEqual(ids(4, 3));
    });

    it('filters by target in any case, IDN as typed or in punycode', async () => {
      await repo.save('acme', [
        issue('acme', 1, { target: 'xn--bcher-kva.example' }),
        issue('acme', 2, { target: 'example.com' }),
        issue('acme', 3, { target: 'xn--bcher-kva.example', scan_type: 'ssl' }),
      ]);

      expect(await listed({ target: 'Bücher.Example' })).toEqual(ids(3, 1));
      expect(await listed({ target: 'XN--BCHER-KVA.example.' })).toEqual(ids(3, 1));
      expect(await listed({ target: 'bücher.example', scanType: 'email_security' })).toEqual(ids(1));
      expect(await listed({ target: 'EXAMPLE.COM' })).toEqual(ids(2));
      expect(await listed({ target: 'example' })).toEqual([]);
    });

    it('filters by a rule id or the leading segments of catalogue rule ids', async () => {
      await repo.save('acme', [
        issue('acme', 1, { rule_id: 'mailscan.spf.missing' }),
        issue('acme', 2, { rule_id: 'mailscan.spf.permissive_all', severity: 'medium' }),
        issue('acme', 3, { rule_id: 'mailscan.dmarc.missing' }),
        issue('acme', 4, { rule_id: 'custom.rule' }),
        issue('acme', 5, { rule_id: 'secret.aws_access_key' }),
        issue('acme', 6, { rule_id: 'secret.aws_access_key_id' }),
      ]);

      expect(await listed({ ruleId: 'mailscan.spf' })).toEqual(ids(1, 2));
      // Whole segments: a rule id is not the beginning of another rule whose id merely starts with it.
      expect(await listed({ ruleId: 'secret.aws_access_key' })).toEqual(ids(5));
      expect(await listed({ ruleId: 'secret.aws_access_key_id' })).toEqual(ids(6));
      expect(await listed({ ruleId: 'secret.' }, 1)).toEqual(ids(6, 5));
      expect(await listed({ ruleId: 'mailscan.sp' })).toEqual([]);
      expect(await listed({ ruleId: 'mailscan.' }, 1)).toEqual(ids(3, 1, 2));
      expect(await listed({ ruleId: 'custom.rule' })).toEqual(ids(4));
      expect(await listed({ ruleId: 'mailscan.spf', target: 'EXAMPLE.com' })).toEqual(ids(1, 2));
      expect(await listed({ ruleId: 'mailscan.spf', severity: 'medium' })).toEqual(ids(2));
    });

    it('says which rules a tenant has issues of, whatever their status, in the order asked', async () => {
      await repo.save('acme', [
        issue('acme', 1, { rule_id: 'mailscan.spf.missing' }),
        issue('acme', 2, { rule_id: 'tls.cert.expired', status: 'false_positive' }),
        issue('acme', 3, { rule_id: 'mailscan.spf.missing' }),
      ]);
      await repo.save('other', [issue('other', 4, { rule_id: 'net.port.open' })]);

      const asked = ['tls.cert.expired', 'net.port.open', 'mailscan.spf.missing', 'mailscan.dmarc.missing'];
      expect(await repo.rulesPresent('acme', asked)).toEqual(['tls.cert.expired', 'mailscan.spf.missing']);
      expect(await repo.rulesPresent('other', asked)).toEqual(['net.port.open']);
      expect(await repo.rulesPresent('nobody', asked)).toEqual([]);
    });

    it('filters by severity, scan type and schedule, alone and together', async () => {
      await repo.save('acme', [
        issue('acme', 1, { severity: 'low', schedule_id: 'sch_A' }),
        issue('acme', 2, { severity: 'low', scan_type: 'ssl', target: 'example.com:443' }),
        issue('acme', 3, { severity: 'high', schedule_id: 'sch_A' }),
        issue('acme', 4, { severity: 'low', schedule_id: 'sch_A', status: 'resolved' }),
      ]);

      expect(await listed({ severity: 'low' }, 1)).toEqual(ids(4, 2, 1));
      expect(await listed({ scanType: 'ssl' })).toEqual(ids(2));
      expect(await listed({ scheduleId: 'sch_A' })).toEqual(ids(3, 4, 1));
      expect(await listed({ scheduleId: 'sch_A', severity: 'low', status: 'open' })).toEqual(ids(1));
      expect(await listed({ scanType: 'vm' })).toEqual([]);
    });

    it('filters overdue issues: per severity, first seen before its bound, on every listing index', async () => {
      const seen = (day: number) => `2026-03-0${day}T00:00:00.000Z`;
      await repo.save('acme', [
        issue('acme', 1, { severity: 'high', first_seen_at: seen(1) }),
        issue('acme', 2, { severity: 'high', first_seen_at: seen(5) }),
        issue('acme', 3, { severity: 'low', first_seen_at: seen(1) }),
        issue('acme', 4, { severity: 'medium', first_seen_at: seen(1) }),
        issue('acme', 5, { severity: 'high', first_seen_at: seen(1), status: 'false_positive' }),
      ]);
      // high: due 3 days after first seen; medium: 10 days; low: no due date.
      const firstSeenBefore = { high: seen(7), medium: '2026-02-28T00:00:00.000Z' };

      expect(await listed({ status: 'open', firstSeenBefore })).toEqual(ids(2, 1));
      expect(await listed({ status: 'open', firstSeenBefore, severity: 'high' }, 1)).toEqual(ids(2, 1));
      expect(await listed({ status: 'open', firstSeenBefore, target: 'EXAMPLE.com' })).toEqual(ids(2, 1));
      expect(await listed({ status: 'open', firstSeenBefore, ruleId: 'mailscan.spf' })).toEqual(ids(2, 1));
      expect(await listed({ status: 'open', firstSeenBefore: { high: seen(3) } })).toEqual(ids(1));
    });

    it('moves an issue between orders when it is seen again', async () => {
      await repo.save('acme', [issue('acme', 1), issue('acme', 2)]);
      await repo.save('acme', [issue('acme', 1, { last_seen_at: '2026-03-05T00:00:00.000Z', version: 2 })]);

      expect(await listed({})).toEqual(ids(1, 2));
      expect(await listed({ target: 'example.com' })).toEqual(ids(1, 2));
    });

    it("refuses another tenant's cursor and a made-up one with ValidationError", async () => {
      await repo.save(
        'acme',
        [1, 2, 3].map((n) => issue('acme', n)),
      );
      const cursor = (await repo.list('acme', { now: NOW }, 1)).nextCursor!;

      await expect(repo.list('globex', { now: NOW }, 1, cursor)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', { now: NOW }, 1, 'iss_0')).rejects.toBeInstanceOf(ValidationError);
      await expect(
        repo.list('acme', { now: NOW }, 1, Buffer.from(JSON.stringify({ v: 1, t: 'acme', p: 'SCH#x' })).toString('base64url')),
      ).rejects.toBeInstanceOf(ValidationError);
    });

    it('sets triage with its history entry, the assignee and comments on the version it read, and refuses a stale version with ConflictError', async () => {
      await repo.save('acme', [issue('acme', 1)]);
      const status = {
        status: 'accepted_risk' as const,
        status_reason: 'vendor fix due',
        status_until: '2026-04-01T00:00:00.000Z',
        status_changed_at: NOW,
        status_changed_by: 'alice',
      };
      const entry = { at: NOW, by: 'alice', from: 'open' as const, to: 'accepted_risk' as const, reason: 'vendor fix due' };
      const triage = { at: NOW, status: { ...status, entry } };

      const changed = await repo.triage('acme', idOf(1), 1, triage);
      const commented = await repo.triage('acme', idOf(1), 2, {
        at: NOW,
        assignee: 'bob@example.com',
        comment: { at: NOW, by: 'alice', text: 'ticket SEC-12' },
      });

      expect(changed).toEqual({ ...issue('acme', 1), ...status, history: [entry], updated_at: NOW, version: 2 });
      expect(commented).toEqual({
        ...changed,
        assignee: 'bob@example.com',
        comments: [{ at: NOW, by: 'alice', text: 'ticket SEC-12' }],
        version: 3,
      });
      await expect(
        repo.triage('acme', idOf(1), 1, { ...triage, status: { ...triage.status, status: 'false_positive' } }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await repo.triage('acme', idOf(9), 1, triage)).toBeNull();
      expect(await repo.triage('globex', idOf(1), 2, triage)).toBeNull();
      expect(await listed({ status: 'accepted_risk' })).toEqual(ids(1));
      expect(await listed({ status: 'open' })).toEqual([]);
    });
  });
}
