import * as z from 'zod';
import { Trigger, desiredTrigger } from './trigger.ts';
import { nextFireTimeOf } from './cron/eventbridge-cron.ts';
import { pageQueryFields } from './page-query.ts';
import { ScanType } from './scan-types.ts';
import { Scope } from './scope.ts';
import { descriptionText, nameText } from './text.ts';

export const CADENCES = ['daily', 'weekly', 'monthly', 'custom'] as const;
export const Cadence = z.enum(CADENCES);
export type Cadence = z.infer<typeof Cadence>;

export const LAST_RUN_STATUSES = ['never_run', 'running', 'success', 'partial', 'failed'] as const;
export const LastRunStatus = z.enum(LAST_RUN_STATUSES);
export type LastRunStatus = z.infer<typeof LastRunStatus>;

export const MAX_TARGETS = 100;

// Object schemas are z.lazy, built at their first parse (docs/cold-start.md): a Lambda function
// builds at cold start none of the request schemas its first request does not need, and none of
// the response schemas, which the API never parses; the OpenAPI document and the UI build them
// when they first use them.

/** Fields a client may never write (DESIGN §4). */
export const READ_ONLY_SCHEDULE_FIELDS = [
  'id',
  'last_run_at',
  'last_run_status',
  'last_scan_id',
  'next_run_at',
  'trigger',
  'created_at',
  'updated_at',
] as const;

/** POST /api/scans/schedules/ body. Cross-field rules live in schedule-rules.ts. */
export const ScheduleCreateRequest = z.lazy(() =>
  z.strictObject({
    name: nameText(200),
    description: descriptionText(2000).optional(),
    scan_type: ScanType,
    target: z.string().min(1),
    targets: z.array(z.string().min(1)).max(MAX_TARGETS).optional(),
    scope: Scope.optional(),
    cadence: Cadence,
    cron_expression: z.string().min(1).max(256).nullable().optional(),
    timezone: z.string().min(1).max(64).optional(),
    enabled: z.boolean().optional(),
  }),
);
export type ScheduleCreateRequest = z.infer<typeof ScheduleCreateRequest>;

/** PATCH body: any subset of the writable fields, at least one. */
export const SchedulePatchRequest = z.lazy(() =>
  ScheduleCreateRequest.unwrap()
    .partial()
    .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one writable field' }),
);
export type SchedulePatchRequest = z.infer<typeof SchedulePatchRequest>;

/** A schedule as the API returns it. */
export const Schedule = z.lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    scan_type: ScanType,
    target: z.string(),
    targets: z.array(z.string()),
    scope: Scope,
    cadence: Cadence,
    cron_expression: z.string().nullable(),
    timezone: z.string(),
    enabled: z.boolean(),
    last_run_at: z.string().nullable(),
    last_run_status: LastRunStatus,
    last_scan_id: z.string().nullable(),
    next_run_at: z.string().nullable(),
    trigger: Trigger.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type Schedule = z.infer<typeof Schedule>;

/** What is stored: the wire schedule minus derived fields, plus the tenant and an optimistic-lock version. */
export interface ScheduleRecord extends Omit<Schedule, 'next_run_at' | 'trigger'> {
  tenant: string;
  version: number;
  /** The trigger this row owns while enabled; every valid cadence produces one (schedule-rules.ts). */
  trigger_definition: Trigger;
}

export const ScheduleListQuery = z.lazy(() =>
  z.strictObject({
    scan_type: ScanType.optional().describe('only this scan type'),
    enabled: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional()
      .describe('only enabled or disabled schedules'),
    ...pageQueryFields(),
  }),
);
export type ScheduleListQuery = z.infer<typeof ScheduleListQuery>;

export const ScheduleList = z.lazy(() => z.object({ items: z.array(Schedule), next_cursor: z.string().nullable() }));

/** A stored row as the API shows it, with `trigger` and `next_run_at` derived at `now`. */
export function scheduleToWire(record: ScheduleRecord, now: Date): Schedule {
  const trigger = desiredTrigger(record);
  const next = trigger ? nextFireTimeOf(trigger.expressions, trigger.timezone, now) : null;
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    scan_type: record.scan_type,
    target: record.target,
    targets: record.targets,
    scope: record.scope,
    cadence: record.cadence,
    cron_expression: record.cron_expression,
    timezone: record.timezone,
    enabled: record.enabled,
    last_run_at: record.last_run_at,
    last_run_status: record.last_run_status,
    last_scan_id: record.last_scan_id,
    next_run_at: next ? next.toISOString() : null,
    trigger,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The schedule's last-run status a finished job stands for. */
export function lastRunStatusOf(status: 'succeeded' | 'partial' | 'failed'): LastRunStatus {
  return status === 'succeeded' ? 'success' : status;
}

/**
 * The schedule's run fields once `job` finished with `status`. Recorded unless the schedule shows a
 * newer scan: also when it never heard of this one (a run now that died before recording its job),
 * so the last job to finish is never left out (docs/scans.md).
 */
export function finishedRun(
  job: { id: string; created_at: string },
  status: LastRunStatus,
): { last_run_at: string; last_run_status: LastRunStatus; last_scan_id: string } {
  return { last_run_at: job.created_at, last_run_status: status, last_scan_id: job.id };
}
