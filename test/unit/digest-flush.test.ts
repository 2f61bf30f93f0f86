/**
 * The hourly digest flush (docs/digests-and-sla.md): which hour ends a flush sends, and that a
 * digest whose endpoint failed at its hour goes out with a later hour's flush.
 */
import { describe, expect, it } from 'vitest';
import { digestEntryOf } from '../../shared/domain/digest.ts';
import { DIGEST_CATCH_UP_HOURS, dueDigestPeriods, makeNotificationDelivery } from '../../shared/services/notification-delivery.ts';
import { InMemoryDigestStore } from '../fakes/in-memory-digest-store.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { notificationRule, scanFinishedEvent } from '../helpers/service-events.ts';

describe('digest flush', () => {
  it('sends the hour ends at least five minutes old, looking back a day', () => {
    const atFivePast = dueDigestPeriods('2026-03-02T11:05:00.000Z');
    const justBefore = dueDigestPeriods('2026-03-02T11:04:59.999Z');

    expect(atFivePast).toHaveLength(DIGEST_CATCH_UP_HOURS);
    expect(atFivePast.at(-1)).toBe('2026-03-02T11:00:00.000Z');
    expect(atFivePast[0]).toBe('2026-03-01T12:00:00.000Z');
    expect(justBefore.at(-1)).toBe('2026-03-02T10:00:00.000Z');
    expect(() => dueDigestPeriods('not a time')).toThrow('not an instant');
  });

  it("sends a digest whose endpoint failed at its hour with the next hour's flush, once", async () => {
    const rules = new InMemoryNotificationRuleRepository();
    const rule = notificationRule('ntf_digest', { delivery: 'digest_hourly' });
    await rules.create(rule);
    const digests = new InMemoryDigestStore();
    // scanFinishedEvent occurred at 10:00: the digest of 10:00-11:00.
    await digests.add([digestEntryOf(scanFinishedEvent(1), rule)]);
    let up = false;
    const posted: string[] = [];
    const delivery = makeNotificationDelivery({
      rules,
      digests,
      queue: { send: async () => undefined },
      http: {
        post: async (_url, request) => {
          if (!up) return { status: 503 };
          posted.push(request.body);
          return { status: 200 };
        },
      },
      email: { send: async () => undefined },
      logger: silentLogger,
      appUrl: 'https://scans.example',
      retryOptions: { sleep: async () => undefined },
    });

    await expect(delivery.flushDue('2026-03-02T11:05:00.000Z')).rejects.toThrow('2026-03-02T11:00:00.000Z');
    const keptForLater = digests.entries.size;
    up = true;
    const nextHour = await delivery.flushDue('2026-03-02T12:05:00.000Z');
    const after = await delivery.flushDue('2026-03-02T13:05:00.000Z');

    expect(keptForLater).toBe(1);
    expect(nextHour).toMatchObject({ sent: 1, events: 1 });
    expect(after).toMatchObject({ sent: 0, events: 0 });
    expect(posted).toHaveLength(1);
    expect(JSON.parse(posted[0])).toMatchObject({ type: 'digest', count: 1, occurred_at: '2026-03-02T11:00:00.000Z' });
  });
});
