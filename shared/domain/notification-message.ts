import { createHmac } from 'node:crypto';
import { titleWithSubject } from './issue-title.ts';
import type { ServiceEvent } from './notification.ts';

/** What a person reads about an event: one line, the link, and the facts (Slack and email). */
export interface EventSummary {
  headline: string;
  link: string;
  facts: [string, string][];
}

/** A test event's summary (POST /api/notifications/{id}/test/). */
export interface TestEvent {
  id: string;
  type: 'notification.test';
  tenant: string;
  occurred_at: string;
  data: { rule_id: string; message: string };
}

export type DeliverableEvent = ServiceEvent | TestEvent;

const VERB = { 'issue.opened': 'opened', 'issue.resolved': 'resolved', 'issue.reopened': 'reopened' } as const;

/** The summary of an event, with links into the UI at `appUrl`. */
export function summarise(event: DeliverableEvent, appUrl: string): EventSummary {
  if (event.type === 'notification.test')
    return { headline: 'Test notification from the scan service', link: appUrl, facts: [['Rule', event.data.rule_id]] };
  if (event.type === 'scan.finished') {
    const { data } = event;
    const changes = data.changes
      ? `${data.changes.new} new, ${data.changes.reopened} reopened, ${data.changes.resolved} resolved, ${data.changes.unchanged} unchanged`
      : 'none tracked';
    return {
      headline: `Scan ${data.status}: ${data.scan_type} of ${data.target}`,
      link: `${appUrl}/scans/${data.scan_id}`,
      facts: [
        ['Target', data.target],
        ['Scan type', data.scan_type],
        ['Status', data.status],
        ['Changes', changes],
      ],
    };
  }
  const { issue } = event.data;
  return {
    headline: `${issue.severity.toUpperCase()} issue ${VERB[event.type]}: ${titleWithSubject(issue)}`,
    link: `${appUrl}/issues/${issue.id}`,
    facts: [
      ['Severity', issue.severity],
      ['Target', issue.target],
      ['Subject', issue.subject || '—'],
      ['Rule', issue.rule_id],
      ['Scan type', issue.scan_type],
    ],
  };
}

/** `X-Signature-256` of a webhook body: HMAC-SHA256 with the rule's secret, as GitHub signs webhooks. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Slack's mrkdwn needs &, < and > escaped in text it should not read as markup. */
const slackText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** An incoming-webhook message: the headline with a link, and the facts as fields. */
export function slackPayload(summary: EventSummary): { text: string; blocks: unknown[] } {
  const text = `${slackText(summary.headline)} <${summary.link}|View>`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'section', fields: summary.facts.map(([name, value]) => ({ type: 'mrkdwn', text: `*${name}*\n${slackText(value)}` })) },
    ],
  };
}

/** A plain-text email of the summary. Header injection is impossible: the subject has no line breaks. */
export function emailOf(summary: EventSummary): { subject: string; text: string } {
  return {
    subject: `[scan service] ${summary.headline}`.replace(/[\r\n]+/g, ' ').slice(0, 200),
    text: [summary.headline, '', ...summary.facts.map(([name, value]) => `${name}: ${value}`), '', summary.link, ''].join('\n'),
  };
}
