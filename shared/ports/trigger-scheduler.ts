import type { TargetedTrigger } from '../domain/trigger.ts';
import type { ResourceClass } from '../../lib/engine-manifest.ts';

/**
 * What a trigger scheduler holds for one trigger name: a row's Trigger (shared/domain/trigger.ts)
 * is one entry per expression, named by shared/domain/trigger-names.ts. What sync provisions and
 * what list and reconcile read.
 */
export interface ProvisionedTrigger {
  /** `<schedule id>` or `<schedule id>-dom` / `<schedule id>-dow`. */
  name: string;
  tenant: string;
  scheduleId: string;
  expression: string;
  timezone: string;
  /**
   * The resource class whose scan queue the trigger delivers to (DESIGN §11): its schedule's scan
   * type's class. Absent: standard (a scheduler with one queue).
   */
  queue?: ResourceClass;
}

/**
 * Port for the periodic triggers (EventBridge Scheduler in AWS, an in-process scheduler locally).
 * Every method is idempotent. Failures throw TriggerUnavailableError.
 */
export interface TriggerScheduler {
  /**
   * Make the triggers of `scheduleId` exactly `definition`: create or update the named triggers,
   * delete names that are no longer emitted. `null` removes every trigger of the schedule. Each
   * trigger delivers to the scan queue of `definition.queue` (standard when absent).
   *
   * `previous` is what the caller knows the scheduler holds for the schedule (the trigger of the
   * row as stored before this write; null: none). Given, an adapter may touch only the names that
   * differ from it, one call each (EventBridge Scheduler's quotas are per second); a name that
   * turns out otherwise (already there, already gone) is still brought to `definition`. Omitted,
   * the adapter assumes nothing and removes every name the schedule could have that `definition`
   * does not emit: the repair path, after a failure or a concurrent change.
   */
  sync(tenant: string, scheduleId: string, definition: TargetedTrigger | null, previous?: TargetedTrigger | null): Promise<void>;
  /** Every trigger the scheduler currently holds (all tenants). */
  list(): Promise<ProvisionedTrigger[]>;
}

/**
 * Scheduler entries that belong to no row and cannot even be read as one (EventBridge schedules in
 * the group whose input is not a fire message); only the EventBridge adapter has them.
 */
export interface UnrecognisedTriggers {
  /** One listing of the group: its well-formed triggers (what list() answers) and the rest. */
  inventory(): Promise<{ triggers: ProvisionedTrigger[]; unrecognised: { name: string; reason: string }[] }>;
  deleteTrigger(name: string): Promise<void>;
}
