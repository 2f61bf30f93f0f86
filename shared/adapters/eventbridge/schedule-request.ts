import type { CreateScheduleInput, GetScheduleOutput } from '@aws-sdk/client-scheduler';
import { FireMessage } from '../../domain/messages.ts';
import { scheduleIdOfTrigger } from '../../domain/trigger-names.ts';
import type { ProvisionedTrigger } from '../../ports/trigger-scheduler.ts';
import type { ResourceClass } from '../../../lib/engine-manifest.ts';

/** EventBridge Scheduler context attributes, substituted into the target input at each fire. */
export const SCHEDULED_TIME_PLACEHOLDER = '<aws.scheduler.scheduled-time>';
export const EXECUTION_ID_PLACEHOLDER = '<aws.scheduler.execution-id>';

/**
 * How long EventBridge Scheduler keeps trying to hand a fire to the scan queue. The event age is
 * the binding limit (185 is the service maximum, so attempts never run out first): an hour covers
 * any realistic SQS or KMS blip, while a fire older than that goes to the dead-letter queue, where
 * it is seen and can be redriven, instead of arriving as one of a pile of stale fires (a 5-minute
 * schedule would otherwise flush a day of them at once). See docs/triggers.md.
 */
export const FIRE_RETRY_POLICY = { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 3_600 } as const;

/** Where a trigger delivers: the environment's group, role and DLQ, and its resource class's scan queue. */
export interface TriggerTarget {
  groupName: string;
  queueArn: string;
  roleArn: string;
  deadLetterArn: string;
}

/** The fire message of DESIGN §5 with the context attributes left as placeholders. */
export function fireInput(tenant: string, scheduleId: string): string {
  const message: FireMessage = {
    kind: 'fire',
    tenant,
    schedule_id: scheduleId,
    scheduled_time: SCHEDULED_TIME_PLACEHOLDER,
    execution_id: EXECUTION_ID_PLACEHOLDER,
  };
  return JSON.stringify(message);
}

/**
 * The full schedule definition for CreateSchedule, and for UpdateSchedule too: Update replaces
 * every field, so anything omitted there would silently reset to the service default.
 */
export function scheduleRequest(target: TriggerTarget, trigger: ProvisionedTrigger): CreateScheduleInput {
  return {
    Name: trigger.name,
    GroupName: target.groupName,
    ScheduleExpression: trigger.expression,
    ScheduleExpressionTimezone: trigger.timezone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: 'ENABLED',
    Description: `scan schedule ${trigger.scheduleId} of tenant ${trigger.tenant}`,
    ActionAfterCompletion: 'NONE',
    Target: {
      Arn: target.queueArn,
      RoleArn: target.roleArn,
      Input: fireInput(trigger.tenant, trigger.scheduleId),
      RetryPolicy: { ...FIRE_RETRY_POLICY },
      DeadLetterConfig: { Arn: target.deadLetterArn },
    },
  };
}

/** The fields we set, in a fixed order, so a stored schedule and a request compare as strings. */
function definitionOf(schedule: CreateScheduleInput | GetScheduleOutput): string {
  return JSON.stringify([
    schedule.ScheduleExpression,
    schedule.ScheduleExpressionTimezone,
    schedule.FlexibleTimeWindow?.Mode,
    schedule.FlexibleTimeWindow?.MaximumWindowInMinutes,
    schedule.State,
    schedule.Description,
    schedule.ActionAfterCompletion,
    schedule.StartDate?.toISOString(),
    schedule.EndDate?.toISOString(),
    schedule.KmsKeyArn,
    schedule.Target?.Arn,
    schedule.Target?.RoleArn,
    schedule.Target?.Input,
    schedule.Target?.RetryPolicy?.MaximumRetryAttempts,
    schedule.Target?.RetryPolicy?.MaximumEventAgeInSeconds,
    schedule.Target?.DeadLetterConfig?.Arn,
  ]);
}

/** Whether a stored schedule already is the requested one, so an Update can be skipped. */
export function matchesRequest(existing: GetScheduleOutput, request: CreateScheduleInput): boolean {
  return definitionOf(existing) === definitionOf(request);
}

/** A stored schedule read back as the fire it will deliver, or why it cannot be one of ours. */
export type ReadTrigger =
  | { ok: true; tenant: string; scheduleId: string; expression: string; timezone: string; queue: ResourceClass }
  | { ok: false; reason: string };

/**
 * Read tenant, schedule id and the resource class of its target queue (`queues`: each class's scan
 * queue ARN) back from a stored schedule. Anything that would not
 * deliver a well-formed fire for the schedule its name claims is rejected with a reason: another
 * target, unparseable input, fixed values where the context attributes belong (every fire would
 * carry the same scheduled_time and be deduplicated away), or a schedule id that does not match
 * the name.
 */
export function readTrigger(queues: ReadonlyMap<string, ResourceClass>, name: string, schedule: GetScheduleOutput): ReadTrigger {
  const queue = queues.get(schedule.Target?.Arn ?? '');
  if (queue === undefined) return { ok: false, reason: 'target is not a scan queue' };
  if (schedule.Target === undefined) return { ok: false, reason: 'target is not a scan queue' };
  if (schedule.ScheduleExpression === undefined) return { ok: false, reason: 'no schedule expression' };
  let input: unknown;
  try {
    input = JSON.parse(schedule.Target.Input ?? '');
  } catch {
    return { ok: false, reason: 'target input is not JSON' };
  }
  const parsed = FireMessage.safeParse(input);
  if (!parsed.success) return { ok: false, reason: 'target input is not a fire message' };
  const fire = parsed.data;
  if (fire.scheduled_time !== SCHEDULED_TIME_PLACEHOLDER || fire.execution_id !== EXECUTION_ID_PLACEHOLDER) {
    return { ok: false, reason: 'target input lacks the scheduler context attributes' };
  }
  if (fire.tenant === '') return { ok: false, reason: 'target input has no tenant' };
  if (fire.schedule_id !== scheduleIdOfTrigger(name)) {
    return { ok: false, reason: 'target input names another schedule' };
  }
  return {
    ok: true,
    tenant: fire.tenant,
    scheduleId: fire.schedule_id,
    expression: schedule.ScheduleExpression,
    // The service evaluates a schedule without a timezone in UTC.
    timezone: schedule.ScheduleExpressionTimezone ?? 'UTC',
    queue,
  };
}
