import { keys } from '../../shared/adapters/dynamodb/keys.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import type { LegacyModel } from '../../shared/domain/legacy/legacy-schedule.ts';
import type { LegacyMarker, LegacyMarkerRepository } from '../../shared/ports/legacy-marker-repository.ts';

/**
 * Markers in a Map, with the conditional claim and the key-ordered listing of the DynamoDB adapter
 * (held to it by test/contracts/legacy-marker-repository-contract.ts).
 */
export class InMemoryLegacyMarkerRepository implements LegacyMarkerRepository {
  readonly markers = new Map<string, LegacyMarker>();

  #key(tenant: string, model: LegacyModel, legacyId: string): string {
    return `${tenant}/${model}/${legacyId}`;
  }

  async get(tenant: string, model: LegacyModel, legacyId: string): Promise<LegacyMarker | null> {
    const marker = this.markers.get(this.#key(tenant, model, legacyId));
    return marker ? { ...marker } : null;
  }

  async claim(marker: LegacyMarker): Promise<boolean> {
    const key = this.#key(marker.tenant, marker.model, marker.legacyId);
    if (this.markers.has(key)) return false;
    this.markers.set(key, { ...marker });
    return true;
  }

  async markDone(tenant: string, model: LegacyModel, legacyId: string): Promise<void> {
    const marker = this.markers.get(this.#key(tenant, model, legacyId));
    if (!marker) throw new NotFoundError(`no ${model} marker ${legacyId} for ${tenant}`);
    marker.state = 'done';
  }

  async *list(tenant: string): AsyncIterable<LegacyMarker> {
    // A Query on the tenant's partition: in sort-key byte order, not the order of the claims.
    const sortKey = (marker: LegacyMarker) => keys.legacyMarker(marker.model, marker.legacyId);
    const own = [...this.markers.values()].filter((marker) => marker.tenant === tenant);
    own.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    for (const marker of own) yield { ...marker };
  }

  async delete(tenant: string, model: LegacyModel, legacyId: string): Promise<void> {
    this.markers.delete(this.#key(tenant, model, legacyId));
  }
}
