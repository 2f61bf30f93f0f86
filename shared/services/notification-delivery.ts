import { retry, type RetryOptions } from '../../lib/retry.ts';
import { digestEntryOf, digestOf, type DigestEntry } from '../domain/digest.ts';
import { eventIdOf, ruleMatches, withAbsoluteLink, type NotificationRuleRecord } from '../domain/notification.ts';
import type { DigestStore } from '../ports/digest-store.ts';
import {
  emailOf,
  slackPayload,
  summarise,
  webhookSignature,
  type DeliverableEvent,
  type EventSummary,
} from '../domain/notification-message.ts';
import type { Logger } from '../ports/logger.ts';
import type { EmailSender, HttpPoster, NotificationMessage, NotificationQueue } from '../ports/notification-channels.ts';
import type { NotificationRuleRepository } from '../ports/notification-rule-repository.ts';

export interface NotificationDeliveryDeps {
  rules: NotificationRuleRepository;
  queue: NotificationQueue;
  http: HttpPoster;
  email: EmailSender;
  logger: Logger;
  /** The UI's origin, for links in messages. */
  appUrl: string;
  /** Where digest rules' events wait for their period's end; without it every rule sends each event. */
  digests?: DigestStore;
  /** Attempts within one delivery before the message goes back to the queue (default 3, backoff 1 s doubling). */
  retryOptions?: Partial<RetryOptions>;
  timeoutMs?: number;
}

/** A non-2xx answer: retried, because receivers answer 5xx and 429 when they are briefly unwell. */
export class DeliveryRefused extends Error {
  constructor(readonly status: number) {
    super(`the endpoint answered ${status}`);
  }
}

export type NotificationDelivery = ReturnType<typeof makeNotificationDelivery>;

const HOUR_MS = 3_600_000;
/** Events of a period still being fanned out when it ends are given this long before its digest is sent. */
export const DIGEST_GRACE_MS = 5 * 60_000;
/** Hour ends every flush looks back over: a day's outage of the trigger loses no digest. */
export const DIGEST_CATCH_UP_HOURS = 24;

/** The hour ends a flush at `at` sends, oldest first: the last one at least DIGEST_GRACE_MS before `at`, and the hours before it. */
export function dueDigestPeriods(at: string): string[] {
  const last = Math.floor((Date.parse(at) - DIGEST_GRACE_MS) / HOUR_MS) * HOUR_MS;
  if (Number.isNaN(last)) throw new Error(`not an instant: ${at}`);
  return Array.from({ length: DIGEST_CATCH_UP_HOURS }, (_, i) => new Date(last - (DIGEST_CATCH_UP_HOURS - 1 - i) * HOUR_MS).toISOString());
}

/**
 * Delivery of events to a tenant's notification rules (DESIGN §15), at least once: an event is
 * fanned out to one queue message per matching rule, so a failing endpoint is retried alone; each
 * delivery tries a few times with backoff, then throws so the queue redelivers it later, and after
 * the queue's last receive it lands in the DLQ. Webhooks carry `X-Event-Id` (the same for every
 * attempt) so a receiver keeps one delivery per event.
 */
export function makeNotificationDelivery({
  rules,
  queue,
  http,
  email,
  logger,
  appUrl,
  digests,
  retryOptions,
  timeoutMs = 10_000,
}: NotificationDeliveryDeps) {
  /** Posts or mails one already-built message to a rule's endpoint. */
  async function sendMessage(
    rule: NotificationRuleRecord,
    summary: EventSummary,
    webhookBody: unknown,
    id: string,
    type: string,
  ): Promise<{ status: number | null }> {
    if (rule.kind === 'email') {
      await email.send({ to: rule.address!, ...emailOf(summary) });
      return { status: null };
    }
    const body = JSON.stringify(rule.kind === 'slack' ? slackPayload(summary) : webhookBody);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'scan-service-notifications/1' };
    if (rule.kind === 'webhook') {
      headers['x-event-id'] = id;
      headers['x-event-type'] = type;
      headers['x-signature-256'] = webhookSignature(rule.secret!, body);
    }
    const { status } = await http.post(rule.url!, { headers, body, timeoutMs });
    if (status < 200 || status > 299) throw new DeliveryRefused(status);
    return { status };
  }

  async function send(rule: NotificationRuleRecord, event: DeliverableEvent): Promise<{ status: number | null }> {
    return sendMessage(rule, summarise(event, appUrl), withAbsoluteLink(event, appUrl), event.id, event.type);
  }

  async function deliverWithRetries(rule: NotificationRuleRecord, event: DeliverableEvent): Promise<{ status: number | null }> {
    return retry(() => send(rule, event), {
      attempts: 3,
      baseMs: 1000,
      maxMs: 8000,
      onRetry: (error, attempt, delayMs) =>
        logger.warn('notification attempt failed', {
          tenant: rule.tenant,
          rule_id: rule.id,
          event_id: event.id,
          attempt,
          delay_ms: delayMs,
          error: String(error),
        }),
      ...retryOptions,
    });
  }

  const service = {
    /** Handles one message of the notification queue; throws to have it redelivered. */
    async handle(message: NotificationMessage): Promise<void> {
      const { event } = message;
      if (message.kind === 'event') {
        const matching = (await rules.list(event.tenant)).filter((rule) => ruleMatches(rule, event));
        const digested = digests ? matching.filter((rule) => rule.delivery !== 'each') : [];
        if (digested.length > 0) await digests!.add(digested.map((rule) => digestEntryOf(event, rule)));
        const each = matching.filter((rule) => !digested.includes(rule));
        for (const rule of each) await queue.send({ kind: 'delivery', event, rule_id: rule.id });
        logger.info('event fanned out', {
          tenant: event.tenant,
          event_id: event.id,
          type: event.type,
          deliveries: each.length,
          digested: digested.length,
        });
        return;
      }
      const rule = await rules.get(event.tenant, message.rule_id);
      if (!rule || !ruleMatches(rule, event)) {
        logger.info('delivery dropped: the rule is gone or no longer wants the event', { tenant: event.tenant, rule_id: message.rule_id });
        return;
      }
      await deliverWithRetries(rule, event);
      logger.info('notification delivered', { tenant: event.tenant, rule_id: rule.id, event_id: event.id, type: event.type });
    },

    /**
     * Sends every digest due at `periodEnd` (an hour's end: hourly and daily digests both end on
     * one): one message per rule, then forgets its entries. Throws after trying them all if any
     * failed, leaving those entries for the next call (at least once, as events).
     */
    async flushDigests(periodEnd: string): Promise<{ sent: number; events: number }> {
      if (!digests) return { sent: 0, events: 0 };
      const entries = await digests.due(periodEnd);
      const byRule = new Map<string, DigestEntry[]>();
      for (const entry of entries) {
        const key = `${entry.tenant}\u0000${entry.rule_id}`;
        (byRule.get(key) ?? byRule.set(key, []).get(key)!).push(entry);
      }
      let sent = 0;
      const failures: string[] = [];
      for (const group of byRule.values()) {
        const { tenant, rule_id: ruleId } = group[0];
        const rule = await rules.get(tenant, ruleId);
        if (rule && rule.enabled) {
          const { summary, body } = digestOf(rule, group, appUrl);
          const id = eventIdOf('digest', tenant, ruleId, periodEnd);
          try {
            await retry(() => sendMessage(rule, summary, { id, tenant, occurred_at: periodEnd, ...body }, id, 'digest'), {
              attempts: 3,
              baseMs: 1000,
              maxMs: 8000,
              ...retryOptions,
            });
            sent += 1;
          } catch (error) {
            failures.push(`${ruleId}: ${String(error)}`);
            continue;
          }
        }
        // A deleted or disabled rule's digest is dropped, as its deliveries are.
        await digests.remove(group);
      }
      if (entries.length > 0) logger.info('digests sent', { period_end: periodEnd, sent, events: entries.length, failed: failures.length });
      if (failures.length > 0) throw new Error(`digests not delivered: ${failures.join('; ')}`);
      return { sent, events: entries.length };
    },

    /**
     * What the hourly trigger calls (the stack's schedule in AWS, the local runtime's tick): sends
     * the digests of every period that ended at least DIGEST_GRACE before `at`, looking back
     * DIGEST_CATCH_UP_HOURS hour ends, so a flush that failed or never ran (an outage, a restart)
     * is sent at a later one. Hour ends already flushed hold nothing and cost one empty Query each.
     * Throws after trying them all if any failed.
     */
    async flushDue(at: string): Promise<{ sent: number; events: number; periods: string[] }> {
      const ends = dueDigestPeriods(at);
      let sent = 0;
      let events = 0;
      const failures: string[] = [];
      for (const periodEnd of ends) {
        try {
          const flushed = await service.flushDigests(periodEnd);
          sent += flushed.sent;
          events += flushed.events;
        } catch (error) {
          failures.push(`${periodEnd}: ${String(error)}`);
        }
      }
      if (failures.length > 0) throw new Error(failures.join('; '));
      return { sent, events, periods: ends };
    },

    /** One delivery of a test event, now, with the outcome (never throws for the endpoint's failure). */
    async test(rule: NotificationRuleRecord, eventId: string, at: string) {
      const event: DeliverableEvent = {
        id: eventId,
        type: 'notification.test',
        tenant: rule.tenant,
        occurred_at: at,
        data: { rule_id: rule.id, message: 'This is a test of a notification rule.' },
      };
      try {
        const { status } = await send(rule, event);
        return { delivered: true, event_id: eventId, status_code: status, error: null };
      } catch (error) {
        const status = error instanceof DeliveryRefused ? error.status : null;
        return { delivered: false, event_id: eventId, status_code: status, error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
  return service;
}
