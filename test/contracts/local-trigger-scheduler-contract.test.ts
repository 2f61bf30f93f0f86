import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { LocalTriggerScheduler } from '../../shared/adapters/local/local-trigger-scheduler.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { describeTriggerSchedulerContract } from './trigger-scheduler-contract.ts';

// The local scheduler obeys the same contract as the EventBridge adapter (DESIGN §7).
describeTriggerSchedulerContract('LocalTriggerScheduler', async () => {
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const queue = new LocalQueue({ name: 'contract', clock, visibilityTimeoutMs: 30_000 });
  return { scheduler: new LocalTriggerScheduler({ clock, queue }) };
});
