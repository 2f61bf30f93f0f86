import { randomBytes } from 'node:crypto';
import { NotFoundError, QuotaExceededError, ValidationError } from '../domain/errors.ts';
import { isLoopbackHost, urlHostProblem, type TargetPolicy } from '../domain/network-policy.ts';
import {
  eventIdOf,
  ruleOnWire,
  type CreateNotificationRule,
  type NotificationRule,
  type NotificationRuleRecord,
  type NotificationTestResult,
  type UpdateNotificationRule,
} from '../domain/notification.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { NotificationRuleRepository } from '../ports/notification-rule-repository.ts';
import type { NotificationDelivery } from './notification-delivery.ts';

/** Rules a tenant may hold: each event is fanned out to every matching one. */
export const NOTIFICATION_RULE_QUOTA = 50;

export interface NotificationServiceDeps {
  rules: NotificationRuleRepository;
  delivery: NotificationDelivery;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  targetPolicy: TargetPolicy;
  /** Loopback endpoints over plain http (the local runtime with ALLOW_LOOPBACK_TARGETS only). */
  allowLoopback?: boolean;
  /** A webhook secret: 32 random bytes by default. */
  newSecret?: () => string;
}

export type NotificationService = ReturnType<typeof makeNotificationService>;

/** Notification rules (DESIGN §15): CRUD for admins, a test delivery. */
export function makeNotificationService({
  rules,
  delivery,
  ids,
  clock,
  logger,
  targetPolicy,
  allowLoopback = false,
  newSecret = () => randomBytes(32).toString('base64url'),
}: NotificationServiceDeps) {
  /** Why an endpoint URL is refused: https only, and never inside the deployment (the connect-time guard checks again). */
  function urlProblem(url: string): string | null {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (allowLoopback && isLoopbackHost(host)) return null;
    if (parsed.protocol !== 'https:') return 'must be an https URL';
    if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
    return urlHostProblem(url, targetPolicy);
  }

  function checkUrl(url: string | undefined): void {
    if (url === undefined) return;
    const problem = urlProblem(url);
    if (problem) throw new ValidationError(`url ${problem}`, [{ field: 'url', message: problem }]);
  }

  async function found(tenant: string, id: string): Promise<NotificationRuleRecord> {
    const rule = await rules.get(tenant, id);
    if (!rule) throw new NotFoundError(`notification rule ${id} not found`);
    return rule;
  }

  return {
    /** Creates a rule; a webhook's `secret` is in this answer and never again. */
    async create(tenant: string, request: CreateNotificationRule): Promise<NotificationRule & { secret?: string }> {
      checkUrl(request.url);
      if ((await rules.list(tenant)).length >= NOTIFICATION_RULE_QUOTA)
        throw new QuotaExceededError(`a tenant holds at most ${NOTIFICATION_RULE_QUOTA} notification rules`);
      const now = clock.now().toISOString();
      const record: NotificationRuleRecord = {
        id: ids.newId('ntf'),
        tenant,
        name: request.name,
        kind: request.kind,
        url: request.url ?? null,
        address: request.address ?? null,
        events: request.events,
        min_severity: request.min_severity ?? 'info',
        scan_types: request.scan_types ?? null,
        schedule_ids: request.schedule_ids ?? null,
        delivery: request.delivery ?? 'each',
        enabled: request.enabled ?? true,
        created_at: now,
        updated_at: now,
        version: 1,
        secret: request.kind === 'webhook' ? newSecret() : null,
      };
      await rules.create(record);
      logger.info('notification rule created', { tenant, rule_id: record.id, kind: record.kind });
      return record.secret === null ? ruleOnWire(record) : { ...ruleOnWire(record), secret: record.secret };
    },

    async list(tenant: string): Promise<NotificationRule[]> {
      return (await rules.list(tenant)).map(ruleOnWire);
    },

    async get(tenant: string, id: string): Promise<NotificationRule> {
      return ruleOnWire(await found(tenant, id));
    },

    async update(tenant: string, id: string, patch: UpdateNotificationRule): Promise<NotificationRule> {
      const rule = await found(tenant, id);
      if (rule.kind === 'email' && patch.url !== undefined)
        throw new ValidationError('url is only for kinds webhook and slack', [
          { field: 'url', message: 'is only for kinds webhook and slack' },
        ]);
      if (rule.kind !== 'email' && patch.address !== undefined)
        throw new ValidationError('address is only for kind email', [{ field: 'address', message: 'is only for kind email' }]);
      checkUrl(patch.url);
      const updated: NotificationRuleRecord = {
        ...rule,
        ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)),
        updated_at: clock.now().toISOString(),
        version: rule.version + 1,
      };
      await rules.update(updated);
      return ruleOnWire(updated);
    },

    async delete(tenant: string, id: string): Promise<void> {
      if (!(await rules.delete(tenant, id))) throw new NotFoundError(`notification rule ${id} not found`);
      logger.info('notification rule deleted', { tenant, rule_id: id });
    },

    /** Sends a test event to the rule's endpoint now, once, and says what happened. */
    async test(tenant: string, id: string): Promise<NotificationTestResult> {
      const rule = await found(tenant, id);
      const at = clock.now().toISOString();
      return delivery.test(rule, eventIdOf('notification.test', id, at), at);
    },
  };
}
