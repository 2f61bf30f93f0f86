import type { ServiceEvent } from '../domain/notification.ts';

/** Port: one HTTP POST to a tenant's endpoint (webhook, Slack), behind the target policy. */
export interface HttpPoster {
  /** Resolves with the answer's status; throws when no answer came (refused address, timeout, reset). */
  post(url: string, request: { headers: Record<string, string>; body: string; timeoutMs: number }): Promise<{ status: number }>;
}

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Port: sends one email (SES v2 in AWS; SMTP on loopback or a file outbox locally). */
export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}

/** Port: the queue behind notification delivery (SQS in AWS, the in-process queue locally). */
export interface NotificationQueue {
  send(message: NotificationMessage): Promise<void>;
}

/** What the notification queue carries: an event to fan out, or one delivery of it to one rule. */
export type NotificationMessage = { kind: 'event'; event: ServiceEvent } | { kind: 'delivery'; event: ServiceEvent; rule_id: string };
