import type { TargetPolicy } from '../domain/network-policy.ts';
import { NotFoundError, QuotaExceededError, ValidationError } from '../domain/errors.ts';
import { desiredTrigger } from '../domain/desired-trigger.ts';
import {
  scheduleToWire,
  type Schedule,
  type ScheduleCreateRequest,
  type SchedulePatchRequest,
  type ScheduleRecord,
  type Trigger,
} from '../domain/schedule.ts';
import { validateCreateRequest, validateScheduleFields, type ScheduleFields, type ValidSchedule } from '../domain/schedule-rules.ts';
import { LEGACY_SCOPE_KEYS } from '../domain/scope.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { Page, ScheduleFilter, ScheduleRepository } from '../ports/schedule-repository.ts';
import type { TriggerScheduler } from '../ports/trigger-scheduler.ts';
import { scopeArtifactIssues, type ArtifactReferences, type ArtifactScopeField } from './artifact-references.ts';

export interface ScheduleServiceDeps {
  repo: ScheduleRepository;
  triggers: TriggerScheduler;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Maximum schedules per tenant. */
  quota: number;
  /** Checks scope.rua / scope.header ids against this tenant's ready artifacts. */
  artifacts: ArtifactReferences;
  /** Which targets the deployment refuses (default: private networks refused). */
  targetPolicy?: TargetPolicy;
}

export type ScheduleService = ReturnType<typeof makeScheduleService>;

function sameTrigger(a: Trigger | null, b: Trigger | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Schedule use cases. The invariant: after every call, successful or not, the trigger scheduler
 * holds exactly the trigger the stored row asks for. Triggers are changed before the row; when
 * the row write then fails, the triggers are put back to what the row (re-read) says.
 */
export function makeScheduleService({ repo, triggers, clock, ids, logger, quota, artifacts, targetPolicy }: ScheduleServiceDeps) {
  const toWire = (record: ScheduleRecord): Schedule => scheduleToWire(record, clock.now());

  async function load(tenant: string, id: string): Promise<ScheduleRecord> {
    const record = await repo.get(tenant, id);
    if (!record) throw new NotFoundError(`schedule ${id} not found`);
    return record;
  }

  /** Puts the triggers back in line with the stored row after a failed write. Never throws. */
  async function restoreTriggers(tenant: string, id: string): Promise<void> {
    try {
      const current = await repo.get(tenant, id);
      await triggers.sync(tenant, id, current ? desiredTrigger(current) : null);
    } catch (error) {
      logger.error('trigger restore failed; reconcile will repair it', { tenant, schedule_id: id, error });
    }
  }

  /** Changes the trigger, then writes the row; on a failed write, restores the trigger. */
  async function writeWithTrigger(previous: ScheduleRecord | null, next: ScheduleRecord, write: () => Promise<void>): Promise<void> {
    const before = previous ? desiredTrigger(previous) : null;
    const after = desiredTrigger(next);
    const changes = !sameTrigger(before, after);
    if (changes) {
      try {
        await triggers.sync(next.tenant, next.id, after);
      } catch (error) {
        await restoreTriggers(next.tenant, next.id);
        throw error;
      }
    }
    try {
      await write();
    } catch (error) {
      if (changes) await restoreTriggers(next.tenant, next.id);
      throw error;
    }
  }

  /**
   * Runs the field rules, then checks that the scope's artifact ids in `artifactFields` name ready
   * artifacts of this tenant with the right purpose (as a manual scan does), and throws one
   * ValidationError listing both kinds of problem. The ids are checked only once the scope's shape
   * is valid, and only for an email_security schedule.
   */
  async function validateWithArtifacts(
    tenant: string,
    fields: Pick<ScheduleFields, 'scan_type' | 'scope'>,
    artifactFields: readonly ArtifactScopeField[],
    validate: () => Promise<ValidSchedule>,
  ): Promise<ValidSchedule> {
    let valid: ValidSchedule | null = null;
    let refused: ValidationError | null = null;
    try {
      valid = await validate();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      refused = error;
    }
    const ruleIssues = refused?.details ?? [];
    const shapeValid = !ruleIssues.some((issue) => issue.field.startsWith('scope'));
    const artifactIssues =
      fields.scan_type === 'email_security' && shapeValid ? await scopeArtifactIssues(artifacts, tenant, fields.scope, artifactFields) : [];
    if (artifactIssues.length > 0) throw new ValidationError('the schedule is not valid', [...ruleIssues, ...artifactIssues]);
    if (refused) throw refused;
    return valid!;
  }

  function fieldsOf(record: ScheduleRecord): ScheduleFields {
    const { name, description, scan_type, target, targets, scope, cadence, cron_expression, timezone, enabled } = record;
    return { name, description, scan_type, target, targets, scope, cadence, cron_expression, timezone, enabled };
  }

  async function createRecord(tenant: string, id: string, input: ScheduleCreateRequest, legacy: boolean): Promise<Schedule> {
    // Legacy rows carry no artifact ids, so the backfill's path checks nothing more unless ids are there.
    const valid = await validateWithArtifacts(tenant, { scan_type: input.scan_type, scope: input.scope ?? {} }, ['rua', 'header'], () =>
      validateCreateRequest(input, { allowLegacyScopeKeys: legacy, targetPolicy }),
    );
    // Fail fast before provisioning anything; the conditional write below is the real guard.
    if ((await repo.count(tenant)) >= quota) throw new QuotaExceededError(`the tenant has reached its quota of ${quota} schedules`);
    const now = clock.now().toISOString();
    const record: ScheduleRecord = {
      ...valid,
      id,
      tenant,
      version: 1,
      last_run_at: null,
      last_run_status: 'never_run',
      last_scan_id: null,
      created_at: now,
      updated_at: now,
    };
    await writeWithTrigger(null, record, () => repo.create(record, quota));
    logger.info('schedule created', { tenant, schedule_id: record.id, enabled: record.enabled, legacy });
    return toWire(record);
  }

  return {
    async list(tenant: string, filter: ScheduleFilter, limit: number, cursor?: string): Promise<Page<Schedule>> {
      const page = await repo.list(tenant, filter, limit, cursor);
      return { items: page.items.map(toWire), nextCursor: page.nextCursor };
    },

    async get(tenant: string, id: string): Promise<Schedule> {
      return toWire(await load(tenant, id));
    },

    async create(tenant: string, input: ScheduleCreateRequest): Promise<Schedule> {
      return createRecord(tenant, ids.newId('sch'), input, false);
    },

    /**
     * The backfill's create: the id is the one its marker reserved (so a crash between the marker
     * and the row is resumable), and the legacy scope tags are allowed. Every other rule of create
     * applies. ConflictError when a row with that id already exists.
     */
    async importLegacy(tenant: string, id: string, input: ScheduleCreateRequest): Promise<Schedule> {
      return createRecord(tenant, id, input, true);
    },

    /**
     * Throws the ValidationError `importLegacy` would for this input (the rules of create with the
     * legacy scope tags allowed, under this deployment's target policy), writing nothing: what the
     * backfill's dry run reports.
     */
    async checkLegacy(input: ScheduleCreateRequest): Promise<void> {
      await validateCreateRequest(input, { allowLegacyScopeKeys: true, targetPolicy });
    },

    async update(tenant: string, id: string, patch: SchedulePatchRequest): Promise<Schedule> {
      const current = await load(tenant, id);
      const merged: ScheduleFields = { ...fieldsOf(current), ...patch };
      // Leaving the custom cadence drops the crontab and its timezone instead of rejecting the patch.
      if (patch.cadence !== undefined && patch.cadence !== 'custom') {
        merged.cron_expression = patch.cron_expression ?? null;
        merged.timezone = patch.timezone ?? 'UTC';
      }
      if (patch.cron_expression === null && merged.cadence === 'custom') {
        throw new ValidationError('the schedule is not valid', [
          { field: 'cron_expression', message: 'is required when cadence is custom' },
        ]);
      }
      // Artifacts expire after 30 days, before most later fires: only ids this patch changes are
      // checked, so a rename of a schedule whose report has since expired still goes through.
      const valid = await validateWithArtifacts(tenant, merged, changedArtifactFields(current, merged), () =>
        validateScheduleFields(merged, { allowLegacyScopeKeys: legacyKeysUnchanged(current, merged), targetPolicy }),
      );
      const next: ScheduleRecord = { ...current, ...valid, version: current.version + 1, updated_at: clock.now().toISOString() };
      await writeWithTrigger(current, next, () => repo.update(next));
      logger.info('schedule updated', { tenant, schedule_id: id, fields: Object.keys(patch) });
      return toWire(next);
    },

    async toggle(tenant: string, id: string): Promise<Schedule> {
      const current = await load(tenant, id);
      const next: ScheduleRecord = {
        ...current,
        enabled: !current.enabled,
        version: current.version + 1,
        updated_at: clock.now().toISOString(),
      };
      await writeWithTrigger(current, next, () => repo.update(next));
      logger.info('schedule toggled', { tenant, schedule_id: id, enabled: next.enabled });
      return toWire(next);
    },

    async remove(tenant: string, id: string): Promise<void> {
      const current = await load(tenant, id);
      const gone: ScheduleRecord = { ...current, enabled: false };
      await writeWithTrigger(current, gone, () => repo.delete(tenant, id, current.version));
      logger.info('schedule deleted', { tenant, schedule_id: id });
    },

    toWire,
  };
}

/** Rows migrated by the backfill keep their legacy tags through a PATCH that leaves them alone. */
function legacyKeysUnchanged(current: ScheduleRecord, merged: ScheduleFields): boolean {
  return LEGACY_SCOPE_KEYS.every((key) => !(key in merged.scope) || merged.scope[key] === current.scope[key]);
}

/** The artifact fields of the scope (rua, header) whose ids differ from the stored row's. */
function changedArtifactFields(current: ScheduleRecord, merged: ScheduleFields): ArtifactScopeField[] {
  const fields: ArtifactScopeField[] = ['rua', 'header'];
  return fields.filter((field) => JSON.stringify(merged.scope[field]) !== JSON.stringify(current.scope[field]));
}
