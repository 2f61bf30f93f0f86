import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProvisionedTrigger, TriggerScheduler } from '../../shared/ports/trigger-scheduler.ts';

/** What a contract run needs from an adapter: a fresh, empty scheduler and how to dispose of it. */
export interface TriggerSchedulerSubject {
  scheduler: TriggerScheduler;
  cleanup?: () => Promise<void>;
}

const DAILY = { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' };
const SPLIT = { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'Europe/Berlin' };
const WEEKLY_IN_TOKYO = { expressions: ['cron(30 9 ? * MON-FRI *)'], timezone: 'Asia/Tokyo' };

function byName(triggers: ProvisionedTrigger[]): ProvisionedTrigger[] {
  return [...triggers].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Behaviour every TriggerScheduler adapter must have (DESIGN §5 naming and lifecycle), run against
 * each adapter so the local scheduler cannot drift from the EventBridge one. `makeSubject` must
 * return a scheduler holding no triggers.
 */
export function describeTriggerSchedulerContract(name: string, makeSubject: () => Promise<TriggerSchedulerSubject>): void {
  describe(`TriggerScheduler contract: ${name}`, () => {
    let subject: TriggerSchedulerSubject;

    beforeEach(async () => {
      subject = await makeSubject();
    });

    afterEach(async () => {
      await subject.cleanup?.();
    });

    it('lists a synced trigger with its tenant, schedule id, expression and timezone', async () => {
      const { scheduler } = subject;

      await scheduler.sync('acme', 'sch_01A', WEEKLY_IN_TOKYO);

      expect(await scheduler.list()).toEqual([
        {
          name: 'sch_01A',
          tenant: 'acme',
          scheduleId: 'sch_01A',
          expression: 'cron(30 9 ? * MON-FRI *)',
          timezone: 'Asia/Tokyo',
          queue: 'standard',
        },
      ]);
    });

    it('names a split day rule -dom and -dow and keeps no plain name', async () => {
      const { scheduler } = subject;
      await scheduler.sync('acme', 'sch_01A', DAILY);

      await scheduler.sync('acme', 'sch_01A', SPLIT);

      expect(byName(await scheduler.list())).toEqual([
        {
          name: 'sch_01A-dom',
          tenant: 'acme',
          scheduleId: 'sch_01A',
          expression: 'cron(0 0 1,15 * ? *)',
          timezone: 'Europe/Berlin',
          queue: 'standard',
        },
        {
          name: 'sch_01A-dow',
          tenant: 'acme',
          scheduleId: 'sch_01A',
          expression: 'cron(0 0 ? * MON *)',
          timezone: 'Europe/Berlin',
          queue: 'standard',
        },
      ]);
    });

    it('keeps only the plain name when a split rule goes back to one expression', async () => {
      const { scheduler } = subject;
      await scheduler.sync('acme', 'sch_01A', SPLIT);

      await scheduler.sync('acme', 'sch_01A', DAILY);

      expect(await scheduler.list()).toEqual([
        { name: 'sch_01A', tenant: 'acme', scheduleId: 'sch_01A', expression: 'cron(0 2 * * ? *)', timezone: 'UTC', queue: 'standard' },
      ]);
    });

    it('updates the expression and timezone of an existing trigger in place', async () => {
      const { scheduler } = subject;
      await scheduler.sync('acme', 'sch_01A', DAILY);

      await scheduler.sync('acme', 'sch_01A', WEEKLY_IN_TOKYO);

      expect(await scheduler.list()).toEqual([
        {
          name: 'sch_01A',
          tenant: 'acme',
          scheduleId: 'sch_01A',
          expression: 'cron(30 9 ? * MON-FRI *)',
          timezone: 'Asia/Tokyo',
          queue: 'standard',
        },
      ]);
    });

    it('removes every trigger of the schedule on sync(null), split or not', async () => {
      const { scheduler } = subject;
      await scheduler.sync('acme', 'sch_01A', SPLIT);
      await scheduler.sync('acme', 'sch_01B', DAILY);

      await scheduler.sync('acme', 'sch_01A', null);
      await scheduler.sync('acme', 'sch_01B', null);

      expect(await scheduler.list()).toEqual([]);
    });

    it('is idempotent: syncing the same definition twice leaves the same triggers', async () => {
      const { scheduler } = subject;
      await scheduler.sync('acme', 'sch_01A', SPLIT);
      const once = byName(await scheduler.list());

      await scheduler.sync('acme', 'sch_01A', SPLIT);

      expect(byName(await scheduler.list())).toEqual(once);
    });

    it('succeeds when removing a schedule that has no trigger', async () => {
      const { scheduler } = subject;

      await expect(scheduler.sync('acme', 'sch_never', null)).resolves.toBeUndefined();

      expect(await scheduler.list()).toEqual([]);
    });

    it('leaves the triggers of other schedules and tenants alone', async () => {
      const { scheduler } = subject;
      await scheduler.sync('acme', 'sch_01A', DAILY);
      await scheduler.sync('globex', 'sch_01B', SPLIT);

      await scheduler.sync('acme', 'sch_01A', null);

      expect(byName(await scheduler.list()).map((trigger) => [trigger.tenant, trigger.name])).toEqual([
        ['globex', 'sch_01B-dom'],
        ['globex', 'sch_01B-dow'],
      ]);
    });
  });
}
