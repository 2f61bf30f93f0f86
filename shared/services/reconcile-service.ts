import type { Logger } from '../ports/logger.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import { triggerNames } from '../domain/trigger-names.ts';
import type { ProvisionedTrigger, TriggerScheduler, UnrecognisedTriggers } from '../ports/trigger-scheduler.ts';
import { targetedTrigger } from '../domain/resource-class.ts';
import type { FireMessage } from '../domain/messages.ts';
import type { RunRecovery } from './run-recovery.ts';

export interface ReconcileAction {
  /** provision: the row wants a trigger it lacks; update: the trigger differs; remove: no row wants it. */
  kind: 'provision' | 'update' | 'remove';
  tenant: string;
  schedule_id: string;
  reason: string;
}

export interface ReconcileReport {
  dry_run: boolean;
  tenant: string | null;
  rows_checked: number;
  triggers_checked: number;
  actions: ReconcileAction[];
  /**
   * Schedules whose run fields disagree with their newest job (docs/scans.md, "Crashes"):
   * `record_finished` is repaired by a real run; a `lost_fire` is put back on the queue where the
   * caller can (locally), and otherwise left to SQS redelivery and the DLQ handler, which hold it.
   */
  runs: { kind: 'record_finished' | 'lost_fire'; tenant: string; schedule_id: string; scan_id: string; reason: string }[];
  /** Actions that failed (the next run retries them). */
  failures: (ReconcileAction & { error: string })[];
}

/** What reconcile compares: each name's expression, timezone and target queue (its resource class, DESIGN §11). */
function describe(triggers: Pick<ProvisionedTrigger, 'name' | 'expression' | 'timezone' | 'queue'>[]): string {
  return JSON.stringify(triggers.map((t) => [t.name, t.expression, t.timezone, t.queue ?? 'standard']).sort());
}

/**
 * Finds and repairs drift between rows and triggers in both directions: enabled rows without (or
 * with stale) triggers, and triggers no row asks for. The rows are the truth.
 */
export function makeReconcileService({
  repo,
  triggers,
  logger,
  unrecognised,
  recovery,
  requeueFire,
}: {
  repo: ScheduleRepository;
  triggers: TriggerScheduler;
  logger: Logger;
  unrecognised?: UnrecognisedTriggers;
  /** Settles run fields from each schedule's newest job; without it (trigger-only tests) runs are not checked. */
  recovery?: RunRecovery;
  /** Puts a lost fire back on the scan queue; only where the queue lost it (locally). */
  requeueFire?: (fire: FireMessage) => Promise<void>;
}) {
  return {
    async reconcile({ dryRun, tenant }: { dryRun: boolean; tenant?: string }): Promise<ReconcileReport> {
      // One listing of the group per run: where unreadable entries are reported, the same listing answers both.
      const inventory = unrecognised ? await unrecognised.inventory() : { triggers: await triggers.list(), unrecognised: [] };
      const provisioned = inventory.triggers.filter((t) => tenant === undefined || t.tenant === tenant);
      const bySchedule = new Map<string, ProvisionedTrigger[]>();
      for (const trigger of provisioned) bySchedule.set(trigger.scheduleId, [...(bySchedule.get(trigger.scheduleId) ?? []), trigger]);

      const actions: ReconcileAction[] = [];
      const repairs: (() => Promise<void>)[] = [];
      const runs: ReconcileReport['runs'] = [];
      const runRepairs: (() => Promise<void>)[] = [];
      let rows = 0;
      for await (const row of repo.listAll(tenant)) {
        rows += 1;
        const run = recovery ? await recovery.inspect(row) : null;
        if (run) {
          const { kind, tenant: owner, schedule_id, scan_id, reason } = run;
          runs.push({ kind, tenant: owner, schedule_id, scan_id, reason });
          if (run.kind === 'record_finished') runRepairs.push(() => recovery!.repair(run));
          else if (run.fire && requeueFire) runRepairs.push(() => requeueFire(run.fire!));
        }
        const want = targetedTrigger(row);
        const have = (bySchedule.get(row.id) ?? []).filter((t) => t.tenant === row.tenant);
        bySchedule.delete(row.id);
        const expected = want
          ? triggerNames(row.id, want.expressions.length).map((name, i) => ({
              name,
              expression: want.expressions[i],
              timezone: want.timezone,
              queue: want.queue,
            }))
          : [];
        if (describe(have) === describe(expected)) continue;
        // Only the target differs: the trigger fires into another class's queue than its type's (drift).
        const wrongQueue =
          want !== null && describe(have.map((t) => ({ ...t, queue: want.queue }))) === describe(expected)
            ? have.find((t) => (t.queue ?? 'standard') !== want.queue)
            : undefined;
        const kind = have.length === 0 ? 'provision' : want === null ? 'remove' : 'update';
        const reason =
          want === null
            ? 'the row is disabled but has triggers'
            : have.length === 0
              ? 'the enabled row has no trigger'
              : wrongQueue !== undefined
                ? `the trigger targets the ${wrongQueue.queue ?? 'standard'} scan queue; ${row.scan_type} runs in the ${want.queue} class`
                : 'the trigger differs from the row';
        actions.push({ kind, tenant: row.tenant, schedule_id: row.id, reason });
        repairs.push(() => triggers.sync(row.tenant, row.id, want));
      }
      for (const [scheduleId, orphans] of bySchedule) {
        for (const owner of new Set(orphans.map((t) => t.tenant))) {
          actions.push({ kind: 'remove', tenant: owner, schedule_id: scheduleId, reason: 'no row owns the trigger' });
          repairs.push(() => triggers.sync(owner, scheduleId, null));
        }
      }

      // Tenant-scoped runs leave unreadable entries alone: their tenant is unknown.
      if (unrecognised && tenant === undefined) {
        for (const entry of inventory.unrecognised) {
          actions.push({ kind: 'remove', tenant: '', schedule_id: entry.name, reason: `unreadable trigger: ${entry.reason}` });
          repairs.push(() => unrecognised.deleteTrigger(entry.name));
        }
      }

      const failures: ReconcileReport['failures'] = [];
      if (!dryRun) {
        for (const [index, repair] of repairs.entries()) {
          try {
            await repair();
          } catch (error) {
            failures.push({ ...actions[index], error: error instanceof Error ? error.message : String(error) });
          }
        }
        // A failing run repair is logged and left to the next run; the trigger report stays as it is.
        for (const repair of runRepairs) await repair().catch((error: unknown) => logger.error('run repair failed', { error }));
      }
      logger.info('reconcile finished', {
        dry_run: dryRun,
        tenant,
        rows,
        triggers: provisioned.length,
        actions: actions.length,
        runs: runs.length,
        failures: failures.length,
      });
      return {
        dry_run: dryRun,
        tenant: tenant ?? null,
        rows_checked: rows,
        triggers_checked: provisioned.length,
        actions,
        runs,
        failures,
      };
    },
  };
}
