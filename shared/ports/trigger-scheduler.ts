/**
 * The periodic trigger of one schedule row: the EventBridge expressions it emits (one, or two for
 * a split day rule) and the timezone they are evaluated in.
 */
export interface TriggerDefinition {
  expressions: string[];
  timezone: string;
}

/** What a trigger scheduler holds for one trigger name. Used by reconcile. */
export interface ProvisionedTrigger {
  /** `<schedule id>` or `<schedule id>-dom` / `<schedule id>-dow`. */
  name: string;
  tenant: string;
  scheduleId: string;
  expression: string;
  timezone: string;
}

/**
 * Port for the periodic triggers (EventBridge Scheduler in AWS, an in-process scheduler locally).
 * Every method is idempotent. Failures throw TriggerUnavailableError.
 */
export interface TriggerScheduler {
  /**
   * Make the triggers of `scheduleId` exactly `definition`: create or update the named triggers,
   * delete names that are no longer emitted. `null` removes every trigger of the schedule.
   */
  sync(tenant: string, scheduleId: string, definition: TriggerDefinition | null): Promise<void>;
  /** Every trigger the scheduler currently holds (all tenants). */
  list(): Promise<ProvisionedTrigger[]>;
}

/** Trigger names per DESIGN §5: the schedule id, suffixed `-dom`/`-dow` when the day rule splits. */
export function triggerNames(scheduleId: string, expressionCount: number): string[] {
  if (expressionCount === 1) return [scheduleId];
  if (expressionCount === 2) return [`${scheduleId}-dom`, `${scheduleId}-dow`];
  throw new RangeError(`a schedule emits one or two expressions, not ${expressionCount}`);
}

/** The schedule id a trigger name belongs to. */
export function scheduleIdOfTrigger(name: string): string {
  return name.replace(/-(dom|dow)$/, '');
}
