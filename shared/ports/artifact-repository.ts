import type { ArtifactRecord } from '../domain/artifact.ts';

/** Port: artifact rows, tenant-partitioned like every other resource. */
export interface ArtifactRepository {
  /** Inserts a new row; `ConflictError` when the id is taken. */
  create(record: ArtifactRecord): Promise<void>;
  get(tenant: string, id: string): Promise<ArtifactRecord | null>;
  /** pending → ready/rejected, once: a second check of the same upload changes nothing. */
  settle(
    tenant: string,
    id: string,
    outcome: { status: 'ready' | 'rejected'; sha256: string | null; reason: string | null },
  ): Promise<ArtifactRecord | null>;
}
