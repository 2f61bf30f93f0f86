import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/domain/errors.ts';
import type { FindingRecord } from '../../shared/domain/finding.ts';
import type { FindingFilter, FindingRepository } from '../../shared/ports/finding-repository.ts';
import { walkPages } from './page-walk.ts';

/** What a contract run needs from an adapter: an empty repository and how to dispose of it. */
export interface FindingRepositorySubject {
  repo: FindingRepository;
  cleanup?: () => Promise<void>;
}

const fingerprintOf = (n: number) => n.toString(16).padStart(64, '0');

function finding(tenant: string, n: number, overrides: Partial<FindingRecord> = {}): FindingRecord {
  return {
    id: `fnd_01HZ${String(n).padStart(22, '0')}`,
    tenant,
    scan_id: 'scan_A',
    schedule_id: null,
    scan_type: 'email_security',
    target: 'example.com',
    rule_id: `rule.${n % 2}`,
    subject: `place ${n}`,
    severity: n % 2 === 0 ? 'high' : 'low',
    title: `finding ${n}`,
    description: 'd',
    evidence: { n },
    remediation: 'r',
    fingerprint: fingerprintOf(n),
    first_seen_at: '2026-03-02T10:00:00.000Z',
    last_seen_at: '2026-03-02T10:00:00.000Z',
    created_at: '2026-03-02T10:00:00.000Z',
    ...overrides,
  };
}

const ids = (...ns: number[]) => ns.map((n) => finding('x', n).id);

function allIds(repo: FindingRepository, tenant: string, filter: FindingFilter, limit: number) {
  return walkPages(repo.list.bind(repo), tenant, filter, limit, 50);
}

/**
 * Behaviour every FindingRepository must have. It runs on the DynamoDB adapter over dynalite and on
 * the in-memory fake the service tests use.
 */
export function describeFindingRepositoryContract(name: string, makeSubject: () => Promise<FindingRepositorySubject>): void {
  describe(`FindingRepository contract: ${name}`, () => {
    let subject: FindingRepositorySubject;
    let repo: FindingRepository;

    beforeEach(async () => {
      subject = await makeSubject();
      repo = subject.repo;
    });

    afterEach(async () => {
      await subject.cleanup?.();
    });

    it('stores findings whole and rewrites the same ids without duplicating them', async () => {
      const saved = [finding('acme', 1), finding('acme', 2)];

      await repo.save('acme', saved);
      await repo.save('acme', saved);

      expect((await repo.list('acme', {}, 10)).items).toEqual([...saved].reverse());
    });

    it('writes more than one batch (25 a request)', async () => {
      const many = Array.from({ length: 60 }, (_, i) => finding('acme', i + 1));

      await repo.save('acme', many);

      expect((await allIds(repo, 'acme', {}, 25)).pages.flat()).toEqual(many.map((f) => f.id).reverse());
    });

    it("lists one fingerprint's findings newest first, within the tenant, as an issue's occurrences", async () => {
      await repo.save('acme', [
        finding('acme', 1),
        finding('acme', 2),
        finding('acme', 3, { fingerprint: fingerprintOf(1), scan_id: 'scan_B' }),
        finding('acme', 4, { fingerprint: fingerprintOf(1), scan_id: 'scan_C' }),
      ]);
      await repo.save('globex', [finding('globex', 5, { fingerprint: fingerprintOf(1) })]);

      expect((await repo.occurrences('acme', fingerprintOf(1), 10)).map((found) => found.id)).toEqual(ids(4, 3, 1));
      expect((await repo.occurrences('acme', fingerprintOf(1), 2)).map((found) => found.id)).toEqual(ids(4, 3));
      expect(await repo.occurrences('acme', fingerprintOf(9), 10)).toEqual([]);
    });

    it('lists newest first in pages; the last page has no cursor and none is empty', async () => {
      await repo.save(
        'acme',
        [1, 2, 3, 4].map((n) => finding('acme', n)),
      );
      await repo.save('globex', [finding('globex', 5)]);

      const byTwo = await allIds(repo, 'acme', {}, 2);
      const byThree = await allIds(repo, 'acme', {}, 3);

      expect(byTwo).toEqual({ pages: [ids(4, 3), ids(2, 1)], cursors: [expect.any(String), null] });
      expect(byThree).toEqual({ pages: [ids(4, 3, 2), ids(1)], cursors: [expect.any(String), null] });
      expect(await repo.list('initech', {}, 10)).toEqual({ items: [], nextCursor: null });
    });

    it('filters by scan, rule, severity and target, alone and together, across pages', async () => {
      await repo.save('acme', [
        finding('acme', 1),
        finding('acme', 2),
        finding('acme', 3, { scan_id: 'scan_B' }),
        finding('acme', 4, { scan_id: 'scan_B', target: 'other.com' }),
        finding('acme', 5, { target: 'other.com' }),
        finding('acme', 6),
      ]);
      await repo.save('globex', [finding('globex', 7), finding('globex', 8, { scan_id: 'scan_B' })]);

      const listed = async (filter: FindingFilter) => (await allIds(repo, 'acme', filter, 1)).pages.flat();

      expect(await listed({ scanId: 'scan_B' })).toEqual(ids(4, 3));
      expect(await listed({ ruleId: 'rule.0' })).toEqual(ids(6, 4, 2));
      expect(await listed({ severity: 'low' })).toEqual(ids(5, 3, 1));
      expect(await listed({ target: 'other.com' })).toEqual(ids(5, 4));
      expect(await listed({ scanId: 'scan_A', ruleId: 'rule.1', target: 'other.com' })).toEqual(ids(5));
      expect(await listed({ ruleId: 'rule.0', severity: 'high', target: 'example.com' })).toEqual(ids(6, 2));
      expect(await listed({ scanId: 'scan_C' })).toEqual([]);
    });

    it("refuses another tenant's cursor, a cursor of another listing and a made-up one with ValidationError", async () => {
      await repo.save(
        'acme',
        [1, 2, 3].map((n) => finding('acme', n)),
      );
      await repo.save(
        'globex',
        [1, 2, 3].map((n) => finding('globex', n)),
      );
      const plain = (await repo.list('acme', {}, 1)).nextCursor!;
      const byScan = (await repo.list('acme', { scanId: 'scan_A' }, 1)).nextCursor!;

      await expect(repo.list('globex', {}, 1, plain)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', { scanId: 'scan_B' }, 1, byScan)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', { ruleId: 'rule.0' }, 1, plain)).rejects.toBeInstanceOf(ValidationError);
      await expect(repo.list('acme', {}, 1, 'fnd_01HZ')).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
