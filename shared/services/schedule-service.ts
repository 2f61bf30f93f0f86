import type { ScanType } from '../domain/scan-types.ts';
import type { TargetPolicy } from '../domain/network-policy.ts';
import { NotFoundError, QuotaExceededError, ValidationError } from '../domain/errors.ts';
import type { TargetedTrigger } from '../domain/trigger.ts';
import { targetedTrigger } from '../domain/resource-class.ts';
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import {
  scheduleToWire,
  type Schedule,
  type ScheduleCreateRequest,
  type SchedulePatchRequest,
  type ScheduleRecord,
} from '../domain/schedule.ts';
import { validateCreateRequest, validateScheduleFields, type ScheduleFields, type ValidSchedule } from '../domain/schedule-rules.ts';
import { LEGACY_SCOPE_KEYS } from '../domain/scope.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { Page } from '../ports/page.ts';
import type { ScheduleFilter, ScheduleRepository } from '../ports/schedule-repository.ts';
import type { TriggerScheduler } from '../ports/trigger-scheduler.ts';
import type { ArtifactReferences } from '../ports/artifact-references.ts';
import type { CredentialReferences } from '../ports/credential-references.ts';
import { artifactScopeFields, scopeArtifactIssues } from './artifact-references.ts';
import { makeCredentialReferences } from './credential-references.ts';

export interface ScheduleServiceDeps {
  repo: ScheduleRepository;
  triggers: TriggerScheduler;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Maximum schedules per tenant. */
  quota: number;
  /** Checks the scope's artifact ids (its engine's manifest names the fields) against this tenant's ready artifacts. */
  artifacts: ArtifactReferences;
  /** Which targets the deployment refuses (default: private networks refused). */
  targetPolicy?: TargetPolicy;
  /** Scan types with a runner here; another type is refused on create (DESIGN §4). Unset: every type. */
  runnerTypes?: ReadonlySet<ScanType>;
  /** The engines' manifests (resource class, memory per target) a schedule is admitted by; default MANIFESTS. */
  manifests?: readonly EngineManifest[];
  /** Checks scope.credential against the tenant's vault (DESIGN §16). Unset: any scope.credential is refused. */
  credentials?: CredentialReferences;
}

export type ScheduleService = ReturnType<typeof makeScheduleService>;

function sameTrigger(a: TargetedTrigger | null, b: TargetedTrigger | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Schedule use cases. The invariant: after every call, successful or not, the trigger scheduler
 * holds exactly the trigger the stored row asks for. Triggers are changed before the row; after
 * the write, failed or not, the trigger is settled on the row as stored (settleTriggers), so calls
 * on one schedule that interleave still leave the trigger of the last row written.
 */
/** How many times settleTriggers follows a row that keeps moving before it leaves it to reconcile. */
const SETTLE_ROUNDS = 5;

export function makeScheduleService({
  repo,
  triggers,
  clock,
  ids,
  logger,
  quota,
  artifacts,
  targetPolicy,
  runnerTypes,
  manifests,
  credentials = makeCredentialReferences(undefined),
}: ScheduleServiceDeps) {
  const toWire = (record: ScheduleRecord): Schedule => scheduleToWire(record, clock.now());

  async function load(tenant: string, id: string): Promise<ScheduleRecord> {
    const record = await repo.get(tenant, id);
    if (!record) throw new NotFoundError(`schedule ${id} not found`);
    return record;
  }

  /**
   * Makes the trigger follow the stored row even when other calls on the same schedule interleave:
   * sync it to the row, then read the row again, and go round again if the row moved meanwhile. A
   * writer that settles after its own write, and a loser that settles after its failed one, then
   * leave the trigger of the last row written: a sync from a stale read is always followed by a
   * settle that reads the newer row. `written` is the row as the caller just wrote it (null:
   * deleted), whose trigger the caller synced before the write: then the first round only reads,
   * and the scheduler is called again only when the row moved. Without it (after a failure) the
   * first round syncs from scratch, assuming nothing about what the scheduler holds.
   * Never throws: reconcile repairs what a failing scheduler leaves behind.
   */
  async function settleTriggers(tenant: string, id: string, written?: ScheduleRecord | null): Promise<void> {
    try {
      let current = written === undefined ? await repo.get(tenant, id) : written;
      let synced = written !== undefined;
      for (let round = 0; round < SETTLE_ROUNDS; round += 1) {
        if (!synced) await triggers.sync(tenant, id, current ? targetedTrigger(current) : null);
        const now = await repo.get(tenant, id);
        if ((now?.version ?? null) === (current?.version ?? null)) return;
        current = now;
        synced = false;
      }
      logger.warn('trigger still moving after settling; reconcile will repair it', { tenant, schedule_id: id });
    } catch (error) {
      logger.error('trigger settle failed; reconcile will repair it', { tenant, schedule_id: id, error });
    }
  }

  /**
   * Changes the trigger (only the names that differ from the previous row's: one Scheduler call
   * for a create, toggle or delete), then writes the row; then settles the trigger on the row as
   * stored, after a failed write as after a successful one (settleTriggers says why both).
   */
  async function writeWithTrigger(
    previous: ScheduleRecord | null,
    next: ScheduleRecord | null,
    write: () => Promise<void>,
    id: { tenant: string; id: string },
  ): Promise<void> {
    const before = previous ? targetedTrigger(previous) : null;
    const after = next ? targetedTrigger(next) : null;
    const changes = !sameTrigger(before, after);
    if (changes) {
      try {
        await triggers.sync(id.tenant, id.id, after, before);
      } catch (error) {
        await settleTriggers(id.tenant, id.id);
        throw error;
      }
    }
    try {
      await write();
    } catch (error) {
      if (changes) await settleTriggers(id.tenant, id.id);
      throw error;
    }
    if (changes) await settleTriggers(id.tenant, id.id, next);
  }

  /**
   * Runs the field rules, then checks that the scope's artifact ids in `artifactFields` name ready
   * artifacts of this tenant with the right purpose (as a manual scan does), and throws one
   * ValidationError listing both kinds of problem. The ids are checked only once the scope's shape
   * is valid, and only for a scan type whose engine has artifact fields.
   */
  async function validateWithArtifacts(
    tenant: string,
    fields: Pick<ScheduleFields, 'scan_type' | 'scope' | 'target' | 'targets'>,
    artifactFields: readonly string[] | undefined,
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
    const artifactIssues = shapeValid ? await scopeArtifactIssues(artifacts, tenant, fields.scan_type, fields.scope, artifactFields) : [];
    // scope.credential: a credential of this tenant, of a kind the type takes, allowed to reach every target (DESIGN §16).
    const targets = valid ? [valid.target, ...valid.targets] : [fields.target, ...(fields.targets ?? [])];
    const credentialIssues =
      shapeValid && !ruleIssues.some((issue) => issue.field.startsWith('target'))
        ? await credentials.checkScope(tenant, fields.scan_type, fields.scope, targets)
        : [];
    artifactIssues.push(...credentialIssues);
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
    const fields = { scan_type: input.scan_type, scope: input.scope ?? {}, target: input.target, targets: input.targets ?? [] };
    const valid = await validateWithArtifacts(tenant, fields, undefined, () =>
      validateCreateRequest(input, { allowLegacyScopeKeys: legacy, targetPolicy, runnerTypes, manifests }),
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
    await writeWithTrigger(null, record, () => repo.create(record, quota), record);
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
     * legacy scope tags allowed, under this deployment's target policy; a scope.credential must be
     * an alias of this tenant, DESIGN §16), writing nothing: what the
     * backfill's dry run reports.
     */
    async checkLegacy(tenant: string, input: ScheduleCreateRequest): Promise<void> {
      const fields = { scan_type: input.scan_type, scope: input.scope ?? {}, target: input.target, targets: input.targets ?? [] };
      await validateWithArtifacts(tenant, fields, [], () =>
        validateCreateRequest(input, { allowLegacyScopeKeys: true, targetPolicy, runnerTypes, manifests }),
      );
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
        validateScheduleFields(merged, {
          allowLegacyScopeKeys: legacyKeysUnchanged(current, merged),
          targetPolicy,
          // A patch that keeps the type keeps working for a type whose runner went away; choosing one is refused.
          runnerTypes: merged.scan_type === current.scan_type ? undefined : runnerTypes,
          manifests,
        }),
      );
      const next: ScheduleRecord = { ...current, ...valid, version: current.version + 1, updated_at: clock.now().toISOString() };
      await writeWithTrigger(current, next, () => repo.update(next), next);
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
      await writeWithTrigger(current, next, () => repo.update(next), next);
      logger.info('schedule toggled', { tenant, schedule_id: id, enabled: next.enabled });
      return toWire(next);
    },

    async remove(tenant: string, id: string): Promise<void> {
      const current = await load(tenant, id);
      await writeWithTrigger(current, null, () => repo.delete(tenant, id, current.version), current);
      logger.info('schedule deleted', { tenant, schedule_id: id });
    },

    toWire,
  };
}

/** Rows migrated by the backfill keep their legacy tags through a PATCH that leaves them alone. */
function legacyKeysUnchanged(current: ScheduleRecord, merged: ScheduleFields): boolean {
  return LEGACY_SCOPE_KEYS.every((key) => !(key in merged.scope) || merged.scope[key] === current.scope[key]);
}

/** The artifact fields of the scope (its engine's manifest names them) whose ids differ from the stored row's. */
function changedArtifactFields(current: ScheduleRecord, merged: ScheduleFields): string[] {
  const fields = Object.keys(artifactScopeFields(merged.scan_type));
  return fields.filter((field) => JSON.stringify(merged.scope[field]) !== JSON.stringify(current.scope[field]));
}
