import type { LegacyModel } from '../domain/legacy/legacy-schedule.ts';

/**
 * The backfill's record that one legacy row is (being) migrated: claimed before the schedule is
 * created, so the schedule id is known before it exists and a crash at any point is resumable.
 */
export interface LegacyMarker {
  tenant: string;
  model: LegacyModel;
  legacyId: string;
  /** The id the schedule is (or will be) created with. */
  scheduleId: string;
  legacyTaskId: number;
  /** The legacy task was enabled at the claim: the backfill disables it, and a rollback re-enables it. */
  disablesLegacyTask: boolean;
  /** `pending` until the schedule exists and the legacy task is disabled. */
  state: 'pending' | 'done';
  claimedAt: string;
  /** The run that claimed it, for the logs. */
  runId: string;
}

/** Markers, one per (tenant, legacy model, legacy id), stored in the tenant's partition. */
export interface LegacyMarkerRepository {
  get(tenant: string, model: LegacyModel, legacyId: string): Promise<LegacyMarker | null>;
  /** Writes the marker unless one exists (conditional put): false when another run claimed it first. */
  claim(marker: LegacyMarker): Promise<boolean>;
  /** Sets the state to `done`; `NotFoundError` when no such marker was claimed. */
  markDone(tenant: string, model: LegacyModel, legacyId: string): Promise<void>;
  /** The tenant's markers (a Query on its partition): for a rollback. */
  list(tenant: string): AsyncIterable<LegacyMarker>;
  delete(tenant: string, model: LegacyModel, legacyId: string): Promise<void>;
}
