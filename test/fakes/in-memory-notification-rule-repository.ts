import { ConflictError } from '../../shared/domain/errors.ts';
import type { NotificationRuleRecord } from '../../shared/domain/notification.ts';
import type { NotificationRuleRepository } from '../../shared/ports/notification-rule-repository.ts';

/** Notification rules in memory, held to the DynamoDB adapter by its contract suite. */
export class InMemoryNotificationRuleRepository implements NotificationRuleRepository {
  readonly rows = new Map<string, NotificationRuleRecord>();
  #key = (tenant: string, id: string) => `${tenant}/${id}`;

  async create(rule: NotificationRuleRecord): Promise<void> {
    if (this.rows.has(this.#key(rule.tenant, rule.id))) throw new ConflictError(`notification rule ${rule.id} already exists`);
    this.rows.set(this.#key(rule.tenant, rule.id), structuredClone(rule));
  }

  async get(tenant: string, id: string): Promise<NotificationRuleRecord | null> {
    const row = this.rows.get(this.#key(tenant, id));
    return row ? structuredClone(row) : null;
  }

  async list(tenant: string): Promise<NotificationRuleRecord[]> {
    return [...this.rows.values()]
      .filter((rule) => rule.tenant === tenant)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((rule) => structuredClone(rule));
  }

  async update(rule: NotificationRuleRecord): Promise<void> {
    const row = this.rows.get(this.#key(rule.tenant, rule.id));
    if (!row || row.version !== rule.version - 1) throw new ConflictError('the notification rule changed meanwhile; read it again');
    this.rows.set(this.#key(rule.tenant, rule.id), structuredClone(rule));
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    return this.rows.delete(this.#key(tenant, id));
  }
}
