/**
 * How a schedule's triggers are named (DESIGN §5). Pure rules, shared by the EventBridge and local
 * trigger schedulers, reconcile and the fire-message check, so every one of them names alike.
 */

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
