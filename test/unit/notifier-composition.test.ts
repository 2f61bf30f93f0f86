import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { awsNotifierAdapters, composeNotifier } from '../../functions/notifier-composition.ts';
import { NotifierConfig, readConfig } from '../../shared/config/function-config.ts';
import type { NotificationRuleRecord } from '../../shared/domain/notification.ts';
import type { NotificationMessage } from '../../shared/ports/notification-channels.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { emailRule, notificationRule, scanFinishedEvent } from '../helpers/service-events.ts';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/notifications';
const config = readConfig(NotifierConfig, {
  TABLE_NAME: 'scan-service-test',
  NOTIFICATION_QUEUE_URL: QUEUE_URL,
  NOTIFICATION_SENDER: 'alerts@scan.example.com',
  APP_URL: 'https://scan.example.com',
});

const rule = notificationRule;

const records = (...messages: Array<NotificationMessage | string>): SQSEvent =>
  ({
    Records: messages.map((message, i) => ({
      messageId: `m${i}`,
      body: typeof message === 'string' ? message : JSON.stringify(message),
      attributes: { ApproximateReceiveCount: '1' },
    })),
  }) as unknown as SQSEvent;

/** The notifier as AWS builds it, with the SDK clients replaced by recorders and the rules in memory. */
async function notifier(...rules: NotificationRuleRecord[]) {
  const warnings: Array<Record<string, unknown>> = [];
  const logger = {
    ...silentLogger,
    warn: (message: string, fields: Record<string, unknown> = {}) => void warnings.push({ message, ...fields }),
  };
  const sent: Array<{ command: string; input: Record<string, unknown> }> = [];
  const recorder = async () =>
    ({
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        sent.push({ command: command.constructor.name, input: command.input });
        return {};
      },
    }) as never;
  const repository = new InMemoryNotificationRuleRepository();
  for (const each of rules) await repository.create(each);
  const adapters = { ...awsNotifierAdapters(config, { sqs: recorder, ses: recorder }), rules: repository };
  const { handler } = composeNotifier(config, adapters, logger, { sleep: async () => {} });
  return { handler, sent, warnings };
}

describe('the notifier composition (AWS adapters over recording clients)', () => {
  it('fans an event out to the notification queue, one delivery per matching rule', async () => {
    const { handler, sent } = await notifier(
      rule('ntf_hook', {}),
      emailRule('ntf_mail'),
      rule('ntf_off', { enabled: false }),
      rule('ntf_issues', { events: ['issue.opened'] }),
    );
    const event = scanFinishedEvent(1);

    const answer = await handler(records({ kind: 'event', event }));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual(
      ['ntf_hook', 'ntf_mail'].map((id) => ({
        command: 'SendMessageCommand',
        input: { QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ kind: 'delivery', event, rule_id: id }) },
      })),
    );
  });

  it('sends an email delivery through SES from the configured sender, linking into the UI', async () => {
    const { handler, sent } = await notifier(emailRule('ntf_mail'));

    const answer = await handler(records({ kind: 'delivery', event: scanFinishedEvent(1), rule_id: 'ntf_mail' }));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(sent).toHaveLength(1);
    expect(sent[0].command).toBe('SendEmailCommand');
    expect(sent[0].input).toMatchObject({
      FromEmailAddress: 'alerts@scan.example.com',
      Destination: { ToAddresses: ['secops@example.com'] },
      Content: { Simple: { Subject: { Data: '[scan service] Scan succeeded: email_security of example.com' } } },
    });
    expect(JSON.stringify(sent[0].input)).toContain('https://scan.example.com/scans/scan_1');
  });

  it('refuses webhook endpoints inside the deployment and reports those records for redelivery', async () => {
    const { handler, sent, warnings } = await notifier(
      rule('ntf_metadata', { url: 'https://169.254.169.254/latest/meta-data/' }),
      rule('ntf_private', { url: 'https://10.0.0.8/hook' }),
      rule('ntf_loopback', { url: 'https://localhost/hook' }),
    );
    const event = scanFinishedEvent(1);

    const answer = await handler(
      records(
        { kind: 'delivery', event, rule_id: 'ntf_metadata' },
        { kind: 'delivery', event, rule_id: 'ntf_private' },
        { kind: 'delivery', event, rule_id: 'ntf_loopback' },
      ),
    );

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }, { itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(sent).toEqual([]);
    // Refused by the target policy before any connection, not by a refused connection.
    const reasons = warnings.filter((warning) => warning.message === 'notification failed; the message will be redelivered');
    expect(reasons.map((warning) => warning.error)).toEqual([
      expect.stringMatching(/^Error: 169\.254\.169\.254: /),
      expect.stringMatching(/^Error: 10\.0\.0\.8: /),
      expect.stringMatching(/^Error: localhost: /),
    ]);
  });

  it('reports a record that is not a notification message, and handles the rest of the batch', async () => {
    const { handler, sent } = await notifier(rule('ntf_hook', {}));

    const answer = await handler(records('{"kind":"event"}', { kind: 'event', event: scanFinishedEvent(2) }));

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    expect(sent.map((call) => call.command)).toEqual(['SendMessageCommand']);
  });

  it('refuses a configuration without the sender or the queue', () => {
    expect(() => readConfig(NotifierConfig, { TABLE_NAME: 't', APP_URL: 'https://scan.example.com' })).toThrow(
      'invalid configuration: NOTIFICATION_QUEUE_URL, NOTIFICATION_SENDER',
    );
  });
});
