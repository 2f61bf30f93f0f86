import { retry, type RetryOptions } from '../../lib/retry.ts';
import { ruleMatches, withAbsoluteLink, type NotificationRuleRecord } from '../domain/notification.ts';
import { emailOf, slackPayload, summarise, webhookSignature, type DeliverableEvent } from '../domain/notification-message.ts';
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
  retryOptions,
  timeoutMs = 10_000,
}: NotificationDeliveryDeps) {
  async function send(rule: NotificationRuleRecord, event: DeliverableEvent): Promise<{ status: number | null }> {
    const summary = summarise(event, appUrl);
    if (rule.kind === 'email') {
      await email.send({ to: rule.address!, ...emailOf(summary) });
      return { status: null };
    }
    const body = JSON.stringify(rule.kind === 'slack' ? slackPayload(summary) : withAbsoluteLink(event, appUrl));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'scan-service-notifications/1' };
    if (rule.kind === 'webhook') {
      headers['x-event-id'] = event.id;
      headers['x-event-type'] = event.type;
      headers['x-signature-256'] = webhookSignature(rule.secret!, body);
    }
    const { status } = await http.post(rule.url!, { headers, body, timeoutMs });
    if (status < 200 || status > 299) throw new DeliveryRefused(status);
    return { status };
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

  return {
    /** Handles one message of the notification queue; throws to have it redelivered. */
    async handle(message: NotificationMessage): Promise<void> {
      const { event } = message;
      if (message.kind === 'event') {
        const matching = (await rules.list(event.tenant)).filter((rule) => ruleMatches(rule, event));
        for (const rule of matching) await queue.send({ kind: 'delivery', event, rule_id: rule.id });
        logger.info('event fanned out', { tenant: event.tenant, event_id: event.id, type: event.type, deliveries: matching.length });
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
}
