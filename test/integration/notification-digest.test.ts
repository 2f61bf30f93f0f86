/**
 * Notification digests (DESIGN §15, docs/digests-and-sla.md): the first scan of a big estate opens
 * 1,000 issues; a rule that asks for an hourly digest receives one signed webhook at the hour's
 * end, not 1,000. The events are the scan path's own (trackIssues, then scanEvents), the queue the
 * local runtime's, the digest store DynamoDB's adapter on dynalite, the receiver a real HTTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../local/dynalite.ts';
import { LocalQueueConsumer } from '../../local/queue-consumer.ts';
import { makeNotifierHandler } from '../../functions/notifier-handler.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbDigestStore } from '../../shared/adapters/dynamodb/dynamodb-digest-store.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { localNotificationQueue, queueEventPublisher } from '../../shared/adapters/local/local-notifications.ts';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { makeHttpPoster } from '../../shared/adapters/notifications/http-poster.ts';
import type { FindingRecord } from '../../shared/domain/finding.ts';
import { trackIssues } from '../../shared/domain/issue-tracking.ts';
import { scanEvents } from '../../shared/domain/scan-events.ts';
import type { ScanJobRecord } from '../../shared/domain/scan-job.ts';
import { makeNotificationDelivery } from '../../shared/services/notification-delivery.ts';
import { makeNotificationService } from '../../shared/services/notification-service.ts';
import { scanJobRecord } from '../contracts/scan-repository-contract.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { freshTenant, startTestService } from '../helpers/local-service.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

const TABLE = 'digests';
const ISSUES = 1000;

/** The first vapt scan of a /22's worth of hosts: 1,000 open ports, each a new issue. */
function firstScanEvents(now: string) {
  const job: ScanJobRecord = { ...scanJobRecord('acme', 1, { scan_type: 'vapt', target: '10.20.0.0/24' }), status: 'succeeded' };
  const findings: FindingRecord[] = Array.from({ length: ISSUES }, (_, n) => ({
    id: `fnd_${n}`,
    tenant: 'acme',
    scan_id: job.id,
    schedule_id: null,
    scan_type: 'vapt',
    target: job.target,
    rule_id: n % 10 === 0 ? 'net.exposed.database' : 'net.port.open',
    subject: `10.20.${Math.floor(n / 250)}.${n % 250}:${n % 10 === 0 ? 6379 : 22}`,
    severity: n % 10 === 0 ? 'high' : 'info',
    title: n % 10 === 0 ? 'Database or cache reachable' : 'Open TCP port',
    description: '',
    evidence: {},
    remediation: '',
    fingerprint: n.toString(16).padStart(32, '0').padEnd(64, 'f'),
    first_seen_at: now,
    last_seen_at: now,
    created_at: now,
  }));
  const tracked = trackIssues({ job, now, existing: [], runs: [{ target: job.target, complete: true, checks: new Map(), findings }] });
  const latest = new Map(tracked.writes.map((issue) => [issue.id, issue]));
  return scanEvents({ ...job, changes: { new: ISSUES, resolved: 0, reopened: 0, unchanged: 0 } }, tracked, latest, now);
}

describe('notification digests', () => {
  let dynamo: LocalDynamo;

  beforeAll(async () => {
    dynamo = await startDynalite({ tableName: TABLE });
  });

  afterAll(async () => {
    await dynamo?.close();
  });

  it('sends a 1,000-issue first scan as one hourly digest, at the hour, signed', async () => {
    const clock = new ManualClock('2026-11-28T10:17:00.000Z');
    const raw = new LocalQueue({ name: 'notifications', clock, visibilityTimeoutMs: 60_000 });
    const queue = localNotificationQueue(raw);
    const rules = new InMemoryNotificationRuleRepository();
    const receiver = await startWebhookReceiver();
    const delivery = makeNotificationDelivery({
      rules,
      queue,
      http: makeHttpPoster({ policy: { allowPrivate: false }, allowLoopback: true }),
      email: { send: async () => undefined },
      logger: silentLogger,
      appUrl: 'https://scans.example',
      digests: makeDynamoDbDigestStore(makeDocumentClient(dynamo.clientConfig), TABLE),
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
    const created = await service.create('acme', {
      name: 'estate digest',
      kind: 'webhook',
      url: receiver.url,
      events: ['issue.opened', 'scan.finished'],
      delivery: 'digest_hourly',
    });
    receiver.useSecret(created.secret!);

    await queueEventPublisher(queue).publish(firstScanEvents(clock.now().toISOString()));
    await consumer.drain();
    const beforeTheHour = receiver.bodies.length;
    const flushed = await delivery.flushDigests('2026-11-28T11:00:00.000Z');
    const again = await delivery.flushDigests('2026-11-28T11:00:00.000Z');
    await receiver.close();

    expect(beforeTheHour).toBe(0);
    expect(flushed).toEqual({ sent: 1, events: ISSUES + 1 });
    expect(again).toEqual({ sent: 0, events: 0 });
    expect(receiver.bodies).toHaveLength(1);
    expect(receiver.badSignatures).toEqual([]);
    const digest = JSON.parse(receiver.bodies[0]) as {
      type: string;
      count: number;
      counts: { by_type: Record<string, number>; by_severity: Record<string, number> };
      events: { severity: string | null; title: string; link: string }[];
    };
    if (process.env.SHOW_DIGEST)
      process.stdout.write(
        `digest: ${JSON.stringify({ ...digest, events: [...digest.events.slice(0, 3), `... ${digest.events.length - 3} more`] })}\n`,
      );
    expect(digest).toMatchObject({
      type: 'digest',
      count: ISSUES + 1,
      counts: { by_type: { 'issue.opened': ISSUES, 'scan.finished': 1 }, by_severity: { high: 100, info: 900 } },
    });
    expect(digest.events[0]).toMatchObject({
      severity: 'high',
      title: expect.stringMatching(/^Database or cache reachable at 10\.20\.\d+\.\d+:6379$/),
      link: expect.stringMatching(/^https:\/\/scans\.example\/issues\/iss_/),
    });
  });
});

describe("npm start's hourly digest tick", () => {
  it('sends a digest rule its events once, at the first tick five minutes after the hour, on a clock the test moves', async () => {
    const runner = new ScriptedRunner();
    runner.behaviour = async () => ({
      findings: [finding(1, { rule_id: 'mailscan.spf.missing', severity: 'high' }), finding(2, { rule_id: 'mailscan.dmarc.missing' })],
    });
    const service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['email_security', runner]]) });
    const receiver = await startWebhookReceiver();
    try {
      const tenant = freshTenant('digest');
      const admin = await service.token(tenant, 'admin');
      const created = await service.call('/api/notifications/', {
        method: 'POST',
        token: admin,
        body: { name: 'hourly', kind: 'webhook', url: receiver.url, events: ['scan.finished', 'issue.opened'], delivery: 'digest_hourly' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      receiver.useSecret(created.body.secret);
      const { runtime, clock } = service;
      // The service's clock starts at 10:00: the scan's events belong to the digest of 10:00-11:00.
      await service.call('/api/scans/', { method: 'POST', token: admin, body: { scan_type: 'email_security', target: 'example.com' } });
      await runtime.drain();
      await runtime.notifier.drain();
      clock.set('2026-03-02T10:30:00.000Z');
      const theHourBefore = await runtime.digestTicker.tick();

      clock.set('2026-03-02T11:04:59.000Z');
      const beforeFivePast = await runtime.digestTicker.tick();
      clock.set('2026-03-02T11:05:00.000Z');
      const atFivePast = await runtime.digestTicker.tick();
      clock.set('2026-03-02T11:06:00.000Z');
      const aMinuteLater = await runtime.digestTicker.tick();

      expect(theHourBefore).toEqual({ sent: 0, events: 0 });
      expect(beforeFivePast).toBeNull();
      expect(atFivePast).toEqual({ sent: 1, events: 3 });
      expect(aMinuteLater).toBeNull();
      expect(receiver.bodies).toHaveLength(1);
      expect(receiver.badSignatures).toEqual([]);
      expect(JSON.parse(receiver.bodies[0])).toMatchObject({
        type: 'digest',
        count: 3,
        counts: { by_type: { 'issue.opened': 2, 'scan.finished': 1 } },
      });
    } finally {
      await receiver.close();
      await service.stop();
    }
  });
});
