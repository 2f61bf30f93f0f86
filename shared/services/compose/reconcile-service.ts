import type { TriggerScheduler } from '../../ports/trigger-scheduler.ts';
import { makeReconcileService, type UnrecognisedTriggers } from '../reconcile-service.ts';
import type { Adapters } from './adapters.ts';

/** The reconcile service (reconcile function, the local runtime). */
export function composeReconcileService(
  { schedules, logger }: Adapters<'schedules' | 'logger'>,
  { triggers, unrecognised }: { triggers: TriggerScheduler; unrecognised?: UnrecognisedTriggers },
) {
  return makeReconcileService({ repo: schedules, triggers, unrecognised, logger });
}
