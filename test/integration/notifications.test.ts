import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { localNotificationQueue, queueEventPublisher } from '../../shared/adapters/local/local-notifications.ts';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { makeSmtpEmailSender } from '../../shared/adapters/notifications/email-senders.ts';
import { makeHttpPoster } from '../../shared/adapters/notifications/http-poster.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import type { Issue } from '../../shared/domain/issue.ts';
import { eventIdOf, type CreateNotificationRule, type ServiceEvent } from '../../shared/domain/notification.ts';
import { makeNotificationDelivery } from '../../shared/services/notification-delivery.ts';
import { makeNotificationService } from '../../shared/services/notification-service.ts';
import { makeNotifierHandler } from '../../functions/notifier-handler.ts';
import { LocalQueueConsumer } from '../../local/queue-consumer.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { startSmtpInbox } from '../helpers/smtp-inbox.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const VISIBILITY = 60_000;

function issue(n: number, overrides: Partial<Issue> = {}): Issue {
  return {
    id: `iss_${String(n).padStart(32, '0')}`,
    fingerprint: String(n).padStart(64, '0'),
    status: 'open',
    scan_type: 'email_security',
    scan_types: ['email_security'],
    target: 'example.com',
    rule_id: 'mailscan.dmarc.missing',
    subject: '_dmarc.example.com',
    assignee: null,
    severity: 'high',
    title: 'No DMARC record',
    first_seen_at: '2026-03-02T10:00:00.000Z',
    last_seen_at: '2026-03-02T10:00:00.000Z',
    occurrence_count: 1,
    reopened_count: 0,
    last_scan_id: 'scan_01HZ0000000000000000000001',
    schedule_id: 'sch_01HZ0000000000000000000001',
    resolved_at: null,
    resolved_scan_id: null,
    status_reason: null,
    status_until: null,
    status_changed_at: null,
    status_changed_by: null,
    updated_at: '2026-03-02T10:00:00.000Z',
    ...overrides,
  };
}

function opened(tenant: string, n: number, overrides: Partial<Issue> = {}): Exclude<ServiceEvent, { type: 'scan.finished' }> {
  return {
    id: eventIdOf('issue.opened', 'scan_01HZ0000000000000000000001', `iss_${n}`),
    type: 'issue.opened',
    tenant,
    occurred_at: '2026-03-02T10:00:00.000Z',
    data: {
      scan_id: 'scan_01HZ0000000000000000000001',
      issue: issue(n, overrides),
      subject: issue(n, overrides).subject,
      severity: issue(n, overrides).severity,
      link: `/issues/${issue(n, overrides).id}`,
    },
  };
}

/** The notification path of the local runtime: in-process queue and DLQ, the real HTTP and SMTP adapters. */
async function harness(smtpUrl: string) {
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const deadLetters = new LocalQueue({ name: 'notification-dlq', clock, visibilityTimeoutMs: VISIBILITY });
  const raw = new LocalQueue({
    name: 'notifications',
    clock,
    visibilityTimeoutMs: VISIBILITY,
    maxReceiveCount: 5,
    deadLetterQueue: deadLetters,
  });
  const queue = localNotificationQueue(raw);
  const rules = new InMemoryNotificationRuleRepository();
  const retries: number[] = [];
  const delivery = makeNotificationDelivery({
    rules,
    queue,
    http: makeHttpPoster({ policy: { allowPrivate: false }, allowLoopback: true }),
    email: await makeSmtpEmailSender(smtpUrl, 'scans@service.example'),
    logger: silentLogger,
    appUrl: 'https://scans.example',
    // Backoff delays are recorded, not waited: no test sleeps.
    retryOptions: { sleep: async (ms) => void retries.push(ms) },
  });
  const service = makeNotificationService({
    rules,
    delivery,
    ids: makeUlidGenerator(() => clock.now().getTime()),
    clock,
    logger: silentLogger,
    targetPolicy: { allowPrivate: false },
    allowLoopback: true,
  });
  const consumer = new LocalQueueConsumer(raw, makeNotifierHandler(delivery, silentLogger), { functionTimeoutMs: 60_000 });
  return { clock, raw, deadLetters, service, consumer, retries, publisher: queueEventPublisher(queue) };
}

const webhook = (url: string, extra: Partial<CreateNotificationRule> = {}): CreateNotificationRule => ({
  name: 'security hook',
  kind: 'webhook',
  url,
  events: ['issue.opened', 'scan.finished'],
  ...extra,
});

describe('notification delivery with a real webhook receiver and SMTP server', () => {
  let inbox: Awaited<ReturnType<typeof startSmtpInbox>>;
  const receivers: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    inbox = await startSmtpInbox();
  });
  afterAll(() => inbox.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  it('delivers a signed webhook once per event id to a receiver that fails twice, after backoff', async () => {
    const receiver = await startWebhookReceiver({ failFirst: 2 });
    receivers.push(receiver);
    const { service, publisher, consumer, retries, raw } = await harness(inbox.url);
    const created = await service.create('acme', webhook(receiver.url));
    receiver.useSecret(created.secret!);

    await publisher.publish([opened('acme', 1), opened('acme', 2)]);
    await consumer.drain();

    expect([...receiver.accepted.keys()].sort()).toEqual([opened('acme', 1).id, opened('acme', 2).id].sort());
    expect([...receiver.attempts.values()]).toEqual([3, 3]);
    expect(receiver.badSignatures).toEqual([]);
    expect(retries).toHaveLength(4);
    // The payload: the event, its subject and severity at the top, its link on the UI's origin.
    const payload = JSON.parse(receiver.accepted.get(opened('acme', 1).id)!.body) as ReturnType<typeof opened>;
    expect(payload).toEqual({
      ...opened('acme', 1),
      data: { ...opened('acme', 1).data, link: `https://scans.example/issues/${issue(1).id}` },
    });
    expect(payload.data).toMatchObject({ subject: '_dmarc.example.com', severity: 'high' });
    if (process.env.SHOW_PAYLOAD) process.stdout.write(`webhook payload: ${receiver.accepted.get(opened('acme', 1).id)!.body}\n`);
    expect(raw.stats()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('shows the secret once: reading the rule again never returns it', async () => {
    const { service } = await harness(inbox.url);
    const created = await service.create('acme', webhook('https://hooks.example.com/x'));

    expect(created.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await service.get('acme', created.id)).not.toHaveProperty('secret');
    expect((await service.list('acme'))[0]).not.toHaveProperty('secret');
  });

  it('retries a failing endpoint through the queue and moves it to the DLQ after the last receive, delivering others once', async () => {
    const failing = await startWebhookReceiver({ alwaysFail: true });
    const healthy = await startWebhookReceiver();
    receivers.push(failing, healthy);
    const { service, publisher, consumer, clock, deadLetters } = await harness(inbox.url);
    healthy.useSecret((await service.create('acme', webhook(healthy.url))).secret!);
    failing.useSecret((await service.create('acme', webhook(failing.url))).secret!);

    await publisher.publish([opened('acme', 1)]);
    for (let receive = 0; receive < 6; receive += 1) {
      await consumer.drain();
      clock.advance(VISIBILITY + 1);
    }

    expect(healthy.accepted.size).toBe(1);
    expect([...healthy.attempts.values()]).toEqual([1]);
    expect([...failing.attempts.values()]).toEqual([5 * 3]);
    const dead = deadLetters.receive(10);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0].body)).toMatchObject({ kind: 'delivery', event: { id: opened('acme', 1).id } });
  });

  it('sends a rule only the events, scan types, schedules and severities it asks for', async () => {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const { service, publisher, consumer } = await harness(inbox.url);
    receiver.useSecret(
      (
        await service.create(
          'acme',
          webhook(receiver.url, { events: ['issue.opened'], min_severity: 'high', scan_types: ['email_security'] }),
        )
      ).secret!,
    );
    const resolved: ServiceEvent = { ...opened('acme', 6), type: 'issue.resolved', id: eventIdOf('issue.resolved', 'x', 'iss_6') };
    const events: ServiceEvent[] = [
      opened('acme', 1),
      opened('acme', 2, { severity: 'medium' }),
      opened('acme', 3, { scan_type: 'ssl' }),
      opened('acme', 4, { severity: 'critical' }),
      opened('globex', 5),
      resolved,
    ];

    await publisher.publish(events);
    await consumer.drain();

    expect([...receiver.accepted.keys()].sort()).toEqual([events[0].id, events[3].id].sort());
  });

  it('posts a Slack message with the severity, target, rule and a link', async () => {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const { service, publisher, consumer } = await harness(inbox.url);
    await service.create('acme', { name: 'slack', kind: 'slack', url: receiver.url, events: ['issue.opened'] });

    await publisher.publish([opened('acme', 1)]);
    await consumer.drain();

    const message = JSON.parse(receiver.bodies[0]) as { text: string; blocks: unknown[] };
    expect(message.text).toBe(
      `HIGH issue opened: No DMARC record at _dmarc.example.com <https://scans.example/issues/${issue(1).id}|View>`,
    );
    expect(JSON.stringify(message.blocks)).toContain('*Subject*\\n_dmarc.example.com');
    expect(JSON.stringify(message.blocks)).toContain('*Target*\\nexample.com');
    expect(JSON.stringify(message.blocks)).toContain('*Rule*\\nmailscan.dmarc.missing');
  });

  it('emails through SMTP with the facts and the link', async () => {
    const { service, publisher, consumer } = await harness(inbox.url);
    await service.create('acme', { name: 'mail', kind: 'email', address: 'secops@example.com', events: ['issue.opened'] });
    const before = inbox.messages.length;

    await publisher.publish([opened('acme', 1)]);
    await consumer.drain();

    const mail = inbox.messages.slice(before);
    expect(mail).toHaveLength(1);
    expect(mail[0].to).toEqual(['secops@example.com']);
    expect(mail[0].raw).toContain('Subject: [scan service] HIGH issue opened: No DMARC record');
    expect(mail[0].raw).toContain('HIGH issue opened: No DMARC record at _dmarc.example.com');
    expect(mail[0].raw).toContain('Target: example.com');
    expect(mail[0].raw).toContain('Subject: _dmarc.example.com');
    expect(mail[0].raw).toContain('Rule: mailscan.dmarc.missing');
    expect(mail[0].raw).toContain(`https://scans.example/issues/${issue(1).id}`);
  });

  it('answers a test delivery with what the endpoint said', async () => {
    const receiver = await startWebhookReceiver({ failFirst: 1 });
    receivers.push(receiver);
    const { service } = await harness(inbox.url);
    const created = await service.create('acme', webhook(receiver.url));
    receiver.useSecret(created.secret!);

    const first = await service.test('acme', created.id);
    const second = await service.test('acme', created.id);

    expect(first).toMatchObject({ delivered: false, status_code: 500, error: 'the endpoint answered 500' });
    expect(second).toMatchObject({ delivered: true, status_code: 204, error: null });
  });

  it('refuses endpoints inside the deployment when the rule is saved, and again when the socket would open', async () => {
    const { service } = await harness(inbox.url);
    const strict = makeHttpPoster({ policy: { allowPrivate: false } });

    for (const url of [
      'https://169.254.169.254/latest',
      'https://10.0.0.8/hook',
      'https://metadata.google.internal/x',
      'http://hooks.example.com/x',
    ]) {
      await expect(service.create('acme', webhook(url))).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(strict.post('http://127.0.0.1:9/hook', { headers: {}, body: '{}', timeoutMs: 1000 })).rejects.toThrow(
      /inside the deployment/,
    );
    await expect(strict.post('http://localhost:9/hook', { headers: {}, body: '{}', timeoutMs: 1000 })).rejects.toThrow(
      /inside the deployment/,
    );
  });
});
