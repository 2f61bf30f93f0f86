import type { FireMessage } from '../../domain/messages.ts';
import type { TriggerScheduler } from '../../ports/trigger-scheduler.ts';
import type { UnrecognisedTriggers } from '../../ports/trigger-scheduler.ts';
import { makeReconcileService } from '../reconcile-service.ts';
import { makeRunRecovery } from '../run-recovery.ts';
import type { Adapters } from './adapters.ts';

/** The reconcile service (reconcile function, the local runtime). */
export function composeReconcileService(
  { schedules, scans, ids, logger }: Adapters<'schedules' | 'scans' | 'ids' | 'logger'>,
  {
    triggers,
    unrecognised,
    requeueFire,
  }: { triggers: TriggerScheduler; unrecognised?: UnrecognisedTriggers; requeueFire?: (fire: FireMessage) => Promise<void> },
) {
  const recovery = makeRunRecovery({ schedules, scans, ids });
  return makeReconcileService({ repo: schedules, triggers, unrecognised, logger, recovery, requeueFire });
}
