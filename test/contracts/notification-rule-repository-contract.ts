import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../shared/domain/errors.ts';
import type { NotificationRuleRecord } from '../../shared/domain/notification.ts';
import type { NotificationRuleRepository } from '../../shared/ports/notification-rule-repository.ts';
import { notificationRule } from '../helpers/service-events.ts';

export interface NotificationRuleRepositorySubject {
  repo: NotificationRuleRepository;
  cleanup?: () => Promise<void>;
}

function rule(tenant: string, n: number, overrides: Partial<NotificationRuleRecord> = {}): NotificationRuleRecord {
  return notificationRule(`ntf_01HZ${String(n).padStart(22, '0')}`, {
    tenant,
    name: `rule ${n}`,
    events: ['issue.opened', 'issue.resolved'],
    min_severity: 'high',
    scan_types: ['email_security'],
    ...overrides,
  });
}

/** Behaviour every NotificationRuleRepository must have: the DynamoDB adapter and the fake. */
export function describeNotificationRuleRepositoryContract(
  name: string,
  makeSubject: () => Promise<NotificationRuleRepositorySubject>,
): void {
  describe(`NotificationRuleRepository contract: ${name}`, () => {
    let subject: NotificationRuleRepositorySubject;
    let repo: NotificationRuleRepository;
    beforeEach(async () => {
      subject = await makeSubject();
      repo = subject.repo;
    });
    afterEach(async () => {
      await subject.cleanup?.();
    });

    it('stores rules whole, lists a tenant oldest first, and keeps tenants apart', async () => {
      await repo.create(rule('acme', 2));
      await repo.create(rule('acme', 1, { kind: 'email', url: null, address: 'sec@example.com', secret: null }));
      await repo.create(rule('globex', 3));

      expect(await repo.get('acme', rule('x', 2).id)).toEqual(rule('acme', 2));
      expect(await repo.get('globex', rule('x', 2).id)).toBeNull();
      expect((await repo.list('acme')).map((found) => found.id)).toEqual([rule('x', 1).id, rule('x', 2).id]);
      expect(await repo.list('initech')).toEqual([]);
    });

    it('refuses a second create of one id and an update from a stale version with ConflictError', async () => {
      await repo.create(rule('acme', 1));

      await expect(repo.create(rule('acme', 1))).rejects.toBeInstanceOf(ConflictError);
      await repo.update(rule('acme', 1, { name: 'renamed', version: 2 }));
      await expect(repo.update(rule('acme', 1, { name: 'stale', version: 2 }))).rejects.toBeInstanceOf(ConflictError);
      expect((await repo.get('acme', rule('x', 1).id))?.name).toBe('renamed');
    });

    it('deletes a rule once, and only in its tenant', async () => {
      await repo.create(rule('acme', 1));

      expect(await repo.delete('globex', rule('x', 1).id)).toBe(false);
      expect(await repo.delete('acme', rule('x', 1).id)).toBe(true);
      expect(await repo.delete('acme', rule('x', 1).id)).toBe(false);
      expect(await repo.list('acme')).toEqual([]);
    });
  });
}
