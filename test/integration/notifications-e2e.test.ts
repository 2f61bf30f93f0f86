import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunnerCheck } from '../../shared/ports/scan-runner.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { startSmtpInbox } from '../helpers/smtp-inbox.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// DESIGN §15 end to end through `npm start`'s runtime: rules made through the API, scans run by the
// scan queue's consumer, events published into the in-process notification queue and delivered by
// the notifier to a real webhook receiver and a real SMTP server on loopback.

const RULE = 'mailscan.spf.missing';
// The check says it examined the whole target: without a coverage a pass resolves nothing (DESIGN §15).
const check = (status: RunnerCheck['status']): RunnerCheck[] => [
  { id: RULE, title: 'SPF', status, detail: '', coverage: { kind: 'target' } },
];
const EVENTS = ['scan.finished', 'issue.opened', 'issue.resolved', 'issue.reopened'];

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

describe('notifications through the local runtime', () => {
  let service: TestService;
  let inbox: Awaited<ReturnType<typeof startSmtpInbox>>;
  let runner: ScriptedRunner;
  let tenant: string;
  let admin: string;
  /** The backoff delays the notifier asked for: recorded, never waited. */
  const backoff: number[] = [];
  const receivers: Receiver[] = [];
  /** Runs before each DynamoDB call; throwing kills the worker there (the call is never made). */
  let beforeCall: (() => void) | undefined;

  beforeAll(async () => {
    inbox = await startSmtpInbox();
    runner = new ScriptedRunner();
    service = await startTestService({
      allowLoopbackTargets: true,
      runners: new Map([['email_security', runner]]),
      smtpUrl: inbox.url,
      notificationRetry: { sleep: async (ms) => void backoff.push(ms) },
      beforeDynamoCall: () => beforeCall?.(),
    });
  });
  afterAll(async () => {
    await service.stop();
    await inbox.close();
  });
  beforeEach(async () => {
    tenant = freshTenant('notify');
    admin = await service.token(tenant, 'admin');
    backoff.length = 0;
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  async function webhookRule(options: Parameters<typeof startWebhookReceiver>[0] = {}): Promise<Receiver> {
    const receiver = await startWebhookReceiver(options);
    receivers.push(receiver);
    const created = await service.call('/api/notifications/', {
      method: 'POST',
      token: admin,
      body: { name: 'hook', kind: 'webhook', url: receiver.url, events: EVENTS },
    });
    expect(created.status).toBe(201);
    receiver.useSecret(created.body.secret);
    return receiver;
  }

  /** A manual scan of example.com, run to the end, then every notification it published delivered. */
  async function scan(): Promise<string> {
    const queued = await service.call('/api/scans/', {
      method: 'POST',
      token: admin,
      body: { scan_type: 'email_security', target: 'example.com' },
    });
    expect(queued.status).toBe(202);
    await service.runtime.drain();
    await service.runtime.notifier.drain();
    return queued.body.id as string;
  }

  const typesOf = (receiver: Receiver) => [...receiver.accepted.values()].map((delivery) => delivery.eventType).sort();

  it('delivers scan.finished and issue.opened once each, signed, then issue.resolved when the check passes, and issue.reopened', async () => {
    const receiver = await webhookRule();
    runner.behaviour = async () => ({ findings: [finding(1, { rule_id: RULE, severity: 'high' })], checks: check('fail') });

    const first = await scan();
    const afterFirst = typesOf(receiver);
    // The scan message delivered again (SQS is at least once): the finished job publishes nothing new.
    service.runtime.scanQueue.sendRaw(JSON.stringify({ kind: 'scan', tenant, scan_id: first }));
    await service.runtime.drain();
    await service.runtime.notifier.drain();
    runner.behaviour = async () => ({ findings: [], checks: check('pass') });
    const second = await scan();
    const afterSecond = typesOf(receiver);
    runner.behaviour = async () => ({ findings: [finding(1, { rule_id: RULE, severity: 'high' })], checks: check('fail') });
    const third = await scan();

    expect(afterFirst).toEqual(['issue.opened', 'scan.finished']);
    expect(afterSecond).toEqual(['issue.opened', 'issue.resolved', 'scan.finished', 'scan.finished']);
    expect(typesOf(receiver)).toEqual([
      'issue.opened',
      'issue.reopened',
      'issue.resolved',
      'scan.finished',
      'scan.finished',
      'scan.finished',
    ]);
    expect(receiver.badSignatures).toEqual([]);
    expect([...receiver.attempts.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    const bodies = [...receiver.accepted.values()].map((delivery) => JSON.parse(delivery.body));
    expect(bodies.every((event) => event.tenant === tenant && receiver.accepted.get(event.id) !== undefined)).toBe(true);
    const opened = bodies.find((event) => event.type === 'issue.opened');
    const resolved = bodies.find((event) => event.type === 'issue.resolved');
    expect(opened.data).toMatchObject({ scan_id: first, issue: { rule_id: RULE, target: 'example.com', status: 'open' } });
    expect(resolved.data).toMatchObject({ scan_id: second, issue: { id: opened.data.issue.id, status: 'resolved' } });
    expect(bodies.find((event) => event.type === 'issue.reopened').data).toMatchObject({
      scan_id: third,
      issue: { id: opened.data.issue.id, status: 'open', reopened_count: 1 },
    });
    const finished = bodies.filter((event) => event.type === 'scan.finished').map((event) => event.data);
    expect(finished.map((data) => [data.scan_id, data.status, data.changes])).toEqual([
      [first, 'succeeded', { new: 1, resolved: 0, reopened: 0, unchanged: 0 }],
      [second, 'succeeded', { new: 0, resolved: 1, reopened: 0, unchanged: 0 }],
      [third, 'succeeded', { new: 0, resolved: 0, reopened: 1, unchanged: 0 }],
    ]);
    expect(service.runtime.notificationQueue.stats()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('publishes the same event ids again when the worker dies after publishing, and the receiver keeps one of each', async () => {
    const receiver = await webhookRule();
    runner.behaviour = async () => ({ findings: [finding(1, { rule_id: RULE })], checks: check('fail') });
    // The worker dies at its first DynamoDB call once the events are on the queue: the job's close.
    beforeCall = () => {
      if (service.runtime.notificationQueue.stats().visible === 0) return;
      beforeCall = undefined;
      throw new Error('worker killed');
    };
    const queued = await service.call('/api/scans/', {
      method: 'POST',
      token: admin,
      body: { scan_type: 'email_security', target: 'example.com' },
    });
    await service.runtime.drain();
    const afterKill = (await service.call(`/api/scans/${queued.body.id}/`, { token: admin })).body.status;

    // SQS hands the scan message out again after its visibility timeout (30 minutes).
    service.clock.advance(31 * 60 * 1000);
    await service.runtime.drain();
    await service.runtime.notifier.drain();

    expect(afterKill).toBe('running');
    expect((await service.call(`/api/scans/${queued.body.id}/`, { token: admin })).body.status).toBe('succeeded');
    expect(typesOf(receiver)).toEqual(['issue.opened', 'scan.finished']);
    expect([...receiver.attempts.values()]).toEqual([2, 2]);
  });

  it('gives a receiver that fails twice exactly one accepted delivery per event id, after backoff', async () => {
    const flaky = await webhookRule({ failFirst: 2 });
    runner.behaviour = async () => ({ findings: [finding(1, { rule_id: RULE }), finding(2)], checks: check('fail') });

    await scan();

    expect(typesOf(flaky)).toEqual(['issue.opened', 'issue.opened', 'scan.finished']);
    expect([...flaky.attempts.values()]).toEqual([3, 3, 3]);
    expect(backoff).toHaveLength(3 * 2);
    expect(flaky.badSignatures).toEqual([]);
  });

  it('never fails a scan for a failing endpoint: the endpoint retries through the queue into the DLQ, others get theirs', async () => {
    const down = await webhookRule({ alwaysFail: true });
    const healthy = await webhookRule();
    runner.behaviour = async () => ({ findings: [finding(1, { rule_id: RULE })], checks: check('fail') });

    const scanId = await scan();
    // Receives 2 to 5, then the one that finds the receive count spent and moves it to the DLQ.
    for (let receive = 2; receive <= 6; receive += 1) {
      service.clock.advance(2 * 60 * 1000 + 1);
      await service.runtime.notifier.drain();
    }

    expect((await service.call(`/api/scans/${scanId}/`, { token: admin })).body.status).toBe('succeeded');
    expect(typesOf(healthy)).toEqual(['issue.opened', 'scan.finished']);
    expect([...down.attempts.values()]).toEqual([5 * 3, 5 * 3]);
    const dead = service.runtime.notificationDeadLetters.receive(10).map((message) => JSON.parse(message.body));
    expect(dead.map((message) => [message.kind, message.event.type]).sort()).toEqual([
      ['delivery', 'issue.opened'],
      ['delivery', 'scan.finished'],
    ]);
  });

  it('sends email rules to the SMTP server, and their test delivery too', async () => {
    const created = await service.call('/api/notifications/', {
      method: 'POST',
      token: admin,
      body: { name: 'mail', kind: 'email', address: 'secops@example.com', events: ['issue.opened'], min_severity: 'high' },
    });
    runner.behaviour = async () => ({
      findings: [finding(1, { rule_id: RULE, severity: 'high', title: 'No SPF record' }), finding(2, { severity: 'low' })],
      checks: check('fail'),
    });
    const before = inbox.messages.length;

    await scan();
    const tested = await service.call(`/api/notifications/${created.body.id}/test/`, { method: 'POST', token: admin });

    const mails = inbox.messages.slice(before);
    expect(mails.map((mail) => mail.to)).toEqual([['secops@example.com'], ['secops@example.com']]);
    expect(mails[0].raw).toMatch(/^Subject: \[scan service\] .*No SPF record/m);
    expect(mails[0].raw).toContain('example.com');
    expect(tested.body).toMatchObject({ delivered: true, status_code: null, error: null });
  });
});

describe('notifications with the defaults of npm start (no SMTP_URL, no ALLOW_LOOPBACK_TARGETS)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('sends email to the outbox file, one JSON line per message', async () => {
    const admin = await service.token(freshTenant('outbox'), 'admin');
    const created = await service.call('/api/notifications/', {
      method: 'POST',
      token: admin,
      body: { name: 'mail', kind: 'email', address: 'secops@example.com', events: ['scan.finished'] },
    });

    const tested = await service.call(`/api/notifications/${created.body.id}/test/`, { method: 'POST', token: admin });

    const lines = (await readFile(service.runtime.outboxFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(tested.body.delivered).toBe(true);
    expect(lines).toEqual([expect.objectContaining({ to: 'secops@example.com', from: 'scan-service@localhost' })]);
    expect(lines[0].subject).toMatch(/^\[scan service\] /);
  });

  it.each(['http://127.0.0.1:8080/hook', 'https://localhost/hook', 'https://[::1]/hook'])(
    'refuses the loopback webhook %s',
    async (url) => {
      const admin = await service.token(freshTenant('loopback'), 'admin');

      const reply = await service.call('/api/notifications/', {
        method: 'POST',
        token: admin,
        body: { name: 'hook', kind: 'webhook', url, events: ['scan.finished'] },
      });

      expect([reply.status, reply.body.error.details[0].field]).toEqual([400, 'url']);
      expect((await service.call('/api/notifications/', { token: admin })).body.items).toEqual([]);
    },
  );
});
