import { describe, it, expect } from 'vitest';
import { LocalTriggerScheduler } from '../../shared/adapters/local/local-trigger-scheduler.ts';
import { cadenceExpressions } from '../../shared/domain/cron/crontab.ts';
import { DispatchFailedError, TriggerUnavailableError } from '../../shared/domain/errors.ts';
import type { QueueMessage } from '../../shared/domain/messages.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import type { MessageQueue } from '../../shared/ports/message-queue.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

class FakeQueue implements MessageQueue {
  readonly sent: QueueMessage[] = [];
  refuse = false;

  async send(message: QueueMessage): Promise<void> {
    if (this.refuse) throw new DispatchFailedError('queue refused');
    this.sent.push(message);
  }
}

function setUp(start: string) {
  const clock = new ManualClock(start);
  const queue = new FakeQueue();
  const scheduler = new LocalTriggerScheduler({ clock, queue });
  return { clock, queue, scheduler };
}

describe('LocalTriggerScheduler', () => {
  it('fires a daily trigger at 02:00 UTC with the fire message of DESIGN §5', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });

    // act
    clock.set('2026-01-01T01:59:59Z');
    const early = await scheduler.runDue();
    clock.set('2026-01-01T02:00:00Z');
    const due = await scheduler.runDue();

    // assert
    expect(early).toEqual([]);
    expect(due).toEqual([
      {
        kind: 'fire',
        tenant: 't1',
        schedule_id: 'sch1',
        scheduled_time: '2026-01-01T02:00:00Z',
        execution_id: expect.stringMatching(UUID),
      },
    ]);
    expect(queue.sent).toEqual(due);
  });

  it('fires every quarter of an hour for cron(0,15,30,45 * * * ? *)', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T09:59:30Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0,15,30,45 * * * ? *)'], timezone: 'UTC' });

    // act
    for (let i = 0; i < 60; i++) {
      clock.advance(MINUTE);
      await scheduler.runDue();
    }

    // assert
    expect(queue.sent.map((m) => (m.kind === 'fire' ? m.scheduled_time : ''))).toEqual([
      '2026-01-01T10:00:00Z',
      '2026-01-01T10:15:00Z',
      '2026-01-01T10:30:00Z',
      '2026-01-01T10:45:00Z',
    ]);
  });

  it('sends each fire once, in time order, when a run covers several', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T10:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0,15,30,45 * * * ? *)'], timezone: 'UTC' });

    // act
    clock.advance(HOUR);
    await scheduler.runDue();
    await scheduler.runDue();

    // assert
    expect(queue.sent.map((m) => (m.kind === 'fire' ? m.scheduled_time : ''))).toEqual([
      '2026-01-01T10:15:00Z',
      '2026-01-01T10:30:00Z',
      '2026-01-01T10:45:00Z',
      '2026-01-01T11:00:00Z',
    ]);
  });

  it('fires a time zone trigger at the local wall time', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-07-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(30 9 ? * MON-FRI *)'], timezone: 'America/New_York' });

    // act (Wednesday 1 July: 09:30 EDT is 13:30Z)
    clock.set('2026-07-01T13:29:00Z');
    const before = await scheduler.runDue();
    clock.set('2026-07-01T13:30:00Z');
    const at = await scheduler.runDue();

    // assert
    expect(before).toEqual([]);
    expect(at.map((m) => m.scheduled_time)).toEqual(['2026-07-01T13:30:00Z']);
    expect(queue.sent).toHaveLength(1);
  });

  it('fires both halves of a split trigger on a day matching both, with one schedule id and time', async () => {
    // prepare (Monday 2 February 2026 is not the 1st or 15th; Monday 1 June 2026 is the 1st)
    const { clock, scheduler } = setUp('2026-05-31T12:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'UTC' });

    // act
    clock.set('2026-06-01T00:00:00Z');
    const due = await scheduler.runDue();

    // assert
    expect(due.map(({ schedule_id, scheduled_time }) => ({ schedule_id, scheduled_time }))).toEqual([
      { schedule_id: 'sch1', scheduled_time: '2026-06-01T00:00:00Z' },
      { schedule_id: 'sch1', scheduled_time: '2026-06-01T00:00:00Z' },
    ]);
    expect(due[0].execution_id).not.toBe(due[1].execution_id);
  });

  it('fires only the matching half of a split trigger on other days', async () => {
    // prepare
    const { clock, scheduler } = setUp('2026-06-01T12:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'UTC' });

    // act
    clock.set('2026-06-16T00:00:00Z');
    const due = await scheduler.runDue();

    // assert: Mondays 8 and 15 June, and the 15th by day of month
    expect(due.map((m) => m.scheduled_time)).toEqual(['2026-06-08T00:00:00Z', '2026-06-15T00:00:00Z', '2026-06-15T00:00:00Z']);
  });

  it('removes every trigger of a schedule on sync(null)', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'UTC' });
    await scheduler.sync('t1', 'sch2', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });

    // act
    await scheduler.sync('t1', 'sch1', null);
    clock.set('2026-01-31T00:00:00Z');
    await scheduler.runDue();

    // assert
    expect((await scheduler.list()).map((t) => t.name)).toEqual(['sch2']);
    expect(queue.sent.every((m) => m.kind === 'fire' && m.schedule_id === 'sch2')).toBe(true);
    expect(queue.sent).toHaveLength(30);
  });

  it('replaces the triggers of a schedule on re-sync, dropping names no longer emitted', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'UTC' });

    // act
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0 6 * * ? *)'], timezone: 'Asia/Kolkata' });
    clock.set('2026-01-02T00:00:00Z');
    await scheduler.runDue();

    // assert: 06:00 IST on 1 January is 00:30Z
    expect(await scheduler.list()).toEqual([
      { name: 'sch1', tenant: 't1', scheduleId: 'sch1', expression: 'cron(0 6 * * ? *)', timezone: 'Asia/Kolkata', queue: 'standard' },
    ]);
    expect(queue.sent.map((m) => (m.kind === 'fire' ? m.scheduled_time : ''))).toEqual(['2026-01-01T00:30:00Z']);
  });

  it('fires nothing for times before the sync', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T02:30:00Z');

    // act
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });
    const right = await scheduler.runDue();
    clock.set('2026-01-02T01:59:00Z');
    const later = await scheduler.runDue();

    // assert
    expect(right).toEqual([]);
    expect(later).toEqual([]);
    expect(queue.sent).toEqual([]);
  });

  it('does not fire a time equal to the sync instant', async () => {
    // prepare
    const { clock, scheduler } = setUp('2026-01-01T02:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });

    // act
    clock.advance(MINUTE);
    const due = await scheduler.runDue();

    // assert
    expect(due).toEqual([]);
  });

  it('lists the triggers with tenant, schedule id, expression and time zone', async () => {
    // prepare
    const { scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'Europe/Paris' });
    await scheduler.sync('t2', 'sch2', { expressions: [cadenceExpressions.weekly], timezone: 'UTC' });

    // act
    const triggers = await scheduler.list();

    // assert
    expect(triggers).toEqual([
      {
        name: 'sch1-dom',
        tenant: 't1',
        scheduleId: 'sch1',
        expression: 'cron(0 0 1,15 * ? *)',
        timezone: 'Europe/Paris',
        queue: 'standard',
      },
      {
        name: 'sch1-dow',
        tenant: 't1',
        scheduleId: 'sch1',
        expression: 'cron(0 0 ? * MON *)',
        timezone: 'Europe/Paris',
        queue: 'standard',
      },
      { name: 'sch2', tenant: 't2', scheduleId: 'sch2', expression: 'cron(0 3 ? * MON *)', timezone: 'UTC', queue: 'standard' },
    ]);
  });

  it("keeps one tenant's triggers when another tenant syncs the same schedule id", async () => {
    // prepare
    const { scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });

    // act
    await scheduler.sync('t2', 'sch1', null);

    // assert
    expect((await scheduler.list()).map((t) => t.tenant)).toEqual(['t1']);
  });

  it.each([
    ['an expression it cannot evaluate', { expressions: ['0 2 * * *'], timezone: 'UTC' }],
    ['an unknown time zone', { expressions: [cadenceExpressions.daily], timezone: 'Mars/Olympus_Mons' }],
  ])('refuses %s with TriggerUnavailableError and keeps the previous triggers', async (_name, definition) => {
    // prepare
    const { scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.weekly], timezone: 'UTC' });

    // act
    const sync = scheduler.sync('t1', 'sch1', definition);

    // assert
    await expect(sync).rejects.toBeInstanceOf(TriggerUnavailableError);
    expect((await scheduler.list()).map((t) => t.expression)).toEqual([cadenceExpressions.weekly]);
  });

  it('resends the fires a refused run did not deliver', async () => {
    // prepare
    const { clock, queue, scheduler } = setUp('2026-01-01T00:00:00Z');
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });
    clock.set('2026-01-01T03:00:00Z');
    queue.refuse = true;

    // act
    const refused = scheduler.runDue();
    await expect(refused).rejects.toBeInstanceOf(DispatchFailedError);
    queue.refuse = false;
    const retried = await scheduler.runDue();

    // assert
    expect(retried.map((m) => m.scheduled_time)).toEqual(['2026-01-01T02:00:00Z']);
  });

  it('runs on a timer between start and stop, reporting failures to onError', async () => {
    // prepare
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const errors: unknown[] = [];
    let ticked: () => void = () => undefined;
    const tick = new Promise<void>((resolve) => (ticked = resolve));
    const refusingQueue: MessageQueue = {
      send: async () => {
        ticked();
        throw new DispatchFailedError('queue refused');
      },
    };
    const scheduler = new LocalTriggerScheduler({ clock, queue: refusingQueue, onError: (err) => errors.push(err) });
    await scheduler.sync('t1', 'sch1', { expressions: [cadenceExpressions.daily], timezone: 'UTC' });
    clock.set('2026-01-01T02:00:00Z');

    // act
    scheduler.start(1);
    await tick;
    // Queued behind the timer's run, so that run and its error report have finished.
    await scheduler.runDue().catch(() => undefined);
    scheduler.stop();

    // assert
    expect(errors[0]).toBeInstanceOf(DispatchFailedError);
  });
});
