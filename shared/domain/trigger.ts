import * as z from 'zod';
import type { ResourceClass } from '../../lib/engine-manifest.ts';

// A row's trigger: its shape and which one a row wants. Apart from schedule.ts, whose module builds
// every schedule schema: reconcile needs this rule and none of those schemas, and each module a
// function imports is built at its cold start. schedule.ts and the trigger scheduler port both
// import it from here.

/**
 * The periodic trigger of one schedule row: the EventBridge expressions it emits (one, or two for a
 * split day rule) and the timezone they are evaluated in. A trigger scheduler holds it as one entry
 * per trigger name (ProvisionedTrigger, shared/ports/trigger-scheduler.ts).
 */
export const Trigger = z.lazy(() =>
  z.object({
    expressions: z.array(z.string()).min(1).max(2),
    timezone: z.string(),
  }),
);
export type Trigger = z.infer<typeof Trigger>;

/**
 * A trigger as a scheduler provisions it: the row's Trigger and the resource class (DESIGN §11)
 * whose scan queue its fires go to, its scan type's class; absent, standard.
 */
export type TargetedTrigger = Trigger & { queue?: ResourceClass };

/** The trigger a row owns: its definition while enabled, none while disabled. */
export function desiredTrigger(record: { enabled: boolean; trigger_definition: Trigger }): Trigger | null {
  return record.enabled ? record.trigger_definition : null;
}
