import type { NotificationRuleRecord } from '../domain/notification.ts';

/**
 * Port for a tenant's notification rules (DESIGN §15). A tenant has few (NOTIFICATION_RULE_QUOTA),
 * so `list` returns all of them. Writes are conditional: ConflictError on a stale version.
 */
export interface NotificationRuleRepository {
  create(rule: NotificationRuleRecord): Promise<void>;
  get(tenant: string, id: string): Promise<NotificationRuleRecord | null>;
  /** Every rule of the tenant, oldest first. */
  list(tenant: string): Promise<NotificationRuleRecord[]>;
  /** Writes the rule if the stored version is `rule.version - 1`. */
  update(rule: NotificationRuleRecord): Promise<void>;
  /** Deletes the rule; false when it did not exist. */
  delete(tenant: string, id: string): Promise<boolean>;
}
