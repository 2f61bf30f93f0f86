import * as z from 'zod';
import { CHECK_STATUSES } from '../../lib/check-status.ts';
import { coverageSchema } from '../../lib/report.ts';
import { SEVERITIES } from '../../lib/severity.ts';
import { pageQueryFields } from './page-query.ts';
import { ScanType } from './scan-types.ts';
import type { ScheduleRecord } from './schedule.ts';
import { Scope } from './scope.ts';

export const SCAN_STATUSES = ['queued', 'running', 'succeeded', 'partial', 'failed'] as const;
export const ScanStatus = z.enum(SCAN_STATUSES);
export type ScanStatus = z.infer<typeof ScanStatus>;
export const FINISHED_STATUSES: readonly ScanStatus[] = ['succeeded', 'partial', 'failed'];

export const SourceType = z.enum(['manual', 'schedule', 'cloud', 'adversary']);
export const ScanTrigger = z.enum(['manual', 'cron', 'run_now', 'adversary']);

export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

// Object schemas are z.lazy, built at their first parse: a Lambda function builds at cold start
// none of the request schemas its first request does not need, and none of the response schemas,
// which the API never parses (docs/cold-start.md).

export const ScanSummary = z.lazy(() =>
  z.object({
    critical: z.number().int(),
    high: z.number().int(),
    medium: z.number().int(),
    low: z.number().int(),
    info: z.number().int(),
    score: z.number().optional(),
    grade: z.string().optional(),
  }),
);
export type ScanSummary = z.infer<typeof ScanSummary>;

/** An error of the scan: the runner's, and where an engine's check could not complete, which target and check. */
export const ScanError = z.lazy(() =>
  z.object({ runner: z.string(), message: z.string(), target: z.string().optional(), check: z.string().optional() }),
);
export type ScanError = z.infer<typeof ScanError>;

export const CheckStatus = z.enum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof CheckStatus>;

/**
 * One check an engine ran (or skipped) on one target: one per catalogue rule, `id` = the rule id
 * (docs/engine-contract.md). `pass` is what lets a later scan resolve an issue (DESIGN §15).
 */
export const ScanCheck = z.lazy(() =>
  z.object({
    target: z.string(),
    id: z.string(),
    title: z.string(),
    status: CheckStatus,
    detail: z.string(),
    /** What the check examined (DESIGN §11, §15); absent when it did not run, did not say, or was too large to store. */
    coverage: coverageSchema().optional(),
  }),
);
export type ScanCheck = z.infer<typeof ScanCheck>;

/**
 * What changed in a scan's component inventory (an SBOM output) since the previous finished scan of
 * the same tenant, scan type and target that has one (DESIGN §15, §18). `since_scan_id` null is the
 * first inventory: nothing is listed as added. The lists keep at most COMPONENT_CHANGES_KEPT purls
 * each (`truncated`); the counts stay exact.
 */
export const ComponentChanges = z.lazy(() =>
  z.object({
    count: z.number().int(),
    since_scan_id: z.string().nullable(),
    added_count: z.number().int(),
    removed_count: z.number().int(),
    added: z.array(z.string()),
    removed: z.array(z.string()),
    truncated: z.boolean(),
  }),
);
export type ComponentChanges = z.infer<typeof ComponentChanges>;

/** What a finished scan did to the tenant's issues: counts by change (DESIGN §15). */
export const ScanChanges = z.lazy(() =>
  z.object({
    new: z.number().int(),
    resolved: z.number().int(),
    reopened: z.number().int(),
    unchanged: z.number().int(),
    /** Scans with an inventory output only (sbom). */
    components: ComponentChanges.optional(),
  }),
);
export type ScanChanges = z.infer<typeof ScanChanges>;

/** Where a scan's log lines are: a CloudWatch log group and an Insights query, or a local file. */
export const ScanLogLocation = z.lazy(() =>
  z.union([z.object({ log_group: z.string(), insights_query: z.string() }), z.object({ file: z.string() })]),
);
export type ScanLogLocation = z.infer<typeof ScanLogLocation>;

/** A document the scan produced (its engine's manifest declares it), stored as an artifact of the tenant. */
export const ScanOutput = z.lazy(() =>
  z.object({
    name: z.string(),
    purpose: z.string(),
    target: z.string(),
    artifact_id: z.string(),
    content_type: z.string(),
    size: z.number().int(),
  }),
);
export type ScanOutput = z.infer<typeof ScanOutput>;

export const ScanJob = z.lazy(() =>
  z.object({
    id: z.string(),
    scan_type: ScanType,
    target: z.string(),
    targets: z.array(z.string()),
    scope: Scope,
    source_type: SourceType,
    schedule_id: z.string().nullable(),
    trigger: ScanTrigger,
    scheduled_time: z.string().nullable(),
    status: ScanStatus,
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    finding_count: z.number().int(),
    summary: ScanSummary,
    errors: z.array(ScanError),
    /** Every check of every target, in target order ([] until the job finishes, and for runners without checks). */
    checks: z.array(ScanCheck),
    log: ScanLogLocation,
    /** What the finished scan did to the tenant's issues (DESIGN §15); null until it finishes. */
    changes: ScanChanges.nullable(),
    /** The stored documents (an SBOM), once finished; absent for scans whose engine produces none. */
    outputs: z.array(ScanOutput).optional(),
  }),
);
export type ScanJob = z.infer<typeof ScanJob>;

/** The issues a finished scan created, resolved and reopened: GET /api/scans/{id}/changes/ lists them. */
export interface ChangedIssueIds {
  new: string[];
  resolved: string[];
  reopened: string[];
  /** True when more changed than the job item keeps (CHANGED_IDS_KEPT); the counts stay exact. */
  truncated: boolean;
}

/** What is stored: the wire job plus its tenant and the ids behind its `changes`. */
export interface ScanJobRecord extends ScanJob {
  tenant: string;
  change_ids?: ChangedIssueIds | null;
}

/** POST /api/scans/ body. */
export const ManualScanRequest = z.lazy(() =>
  z.strictObject({
    scan_type: ScanType,
    target: z.string().min(1),
    targets: z.array(z.string().min(1)).max(100).optional(),
    scope: Scope.optional(),
  }),
);
export type ManualScanRequest = z.infer<typeof ManualScanRequest>;

export const ScanListQuery = z.lazy(() =>
  z.strictObject({
    scan_type: ScanType.optional().describe('only this scan type'),
    status: ScanStatus.optional().describe('only this status'),
    schedule_id: z.string().min(1).max(64).optional().describe('only scans of this schedule'),
    target: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .describe('only scans of this target, compared as issues compare targets: any case, an IDN as typed or in punycode'),
    source_type: SourceType.optional().describe('only this source: manual, schedule, cloud or adversary'),
    search: z
      .string()
      .trim()
      .min(1, 'Type at least one character to search for.')
      .max(256, 'Search for at most 256 characters.')
      .optional()
      .describe('only scans whose target, or one of whose targets, contains this text (any case)'),
    ...pageQueryFields(),
  }),
);
export type ScanListQuery = z.infer<typeof ScanListQuery>;

/**
 * A scan as the list shows it: the job without its `checks` and `errors` (the scan page fetches
 * the whole job), with how many targets and errors it has. A 60-target scan's checks and errors
 * are most of its weight; a page of 50 summaries stays small (DESIGN §3).
 */
export const ScanListItem = z.lazy(() =>
  ScanJob.unwrap().omit({ checks: true, errors: true }).extend({ target_count: z.number().int(), error_count: z.number().int() }),
);
export type ScanListItem = z.infer<typeof ScanListItem>;

export const ScanList = z.lazy(() => z.object({ items: z.array(ScanListItem), next_cursor: z.string().nullable() }));

/** The list's summary of a wire job. */
export function scanListItem(job: ScanJob): ScanListItem {
  const { checks: _checks, errors, ...rest } = job;
  return { ...rest, target_count: 1 + job.targets.length, error_count: errors.length };
}

export function emptySummary(): ScanSummary {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}

/** A new job in `queued`, with nothing run yet: every way of starting a scan builds it here. */
export function queuedJob(
  fields: Pick<
    ScanJobRecord,
    | 'id'
    | 'tenant'
    | 'scan_type'
    | 'target'
    | 'targets'
    | 'scope'
    | 'source_type'
    | 'schedule_id'
    | 'trigger'
    | 'scheduled_time'
    | 'created_at'
    | 'log'
  >,
): ScanJobRecord {
  return {
    ...fields,
    status: 'queued',
    started_at: null,
    finished_at: null,
    finding_count: 0,
    summary: emptySummary(),
    errors: [],
    checks: [],
    changes: null,
  };
}

/** A fresh queued ScanJob for a schedule (cron fire or run now): its scan type, target(s) and scope. */
export function jobForSchedule(
  schedule: ScheduleRecord,
  fire: Pick<ScanJobRecord, 'id' | 'scheduled_time' | 'created_at' | 'log'> & { trigger: 'cron' | 'run_now' },
): ScanJobRecord {
  return queuedJob({
    id: fire.id,
    tenant: schedule.tenant,
    scan_type: schedule.scan_type,
    target: schedule.target,
    targets: schedule.targets,
    scope: schedule.scope,
    source_type: 'schedule',
    schedule_id: schedule.id,
    trigger: fire.trigger,
    scheduled_time: fire.scheduled_time,
    created_at: fire.created_at,
    log: fire.log,
  });
}

/** The job as the API shows it: no tenant, no stored change ids. */
export function scanToWire({ tenant: _tenant, change_ids: _ids, ...job }: ScanJobRecord): ScanJob {
  return job;
}
