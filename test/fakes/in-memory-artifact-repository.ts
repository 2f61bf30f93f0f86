import { ConflictError } from '../../shared/domain/errors.ts';
import type { ArtifactRecord } from '../../shared/domain/artifact.ts';
import type { ArtifactRepository } from '../../shared/ports/artifact-repository.ts';

/**
 * Artifact rows in memory, with the DynamoDB adapter's conditional create and settle (held to it by
 * test/contracts/artifact-repository-contract.ts). Callers get copies, never the stored row.
 */
export class InMemoryArtifactRepository implements ArtifactRepository {
  readonly rows = new Map<string, ArtifactRecord>();

  #key = (tenant: string, id: string) => `${tenant}/${id}`;

  async create(record: ArtifactRecord): Promise<void> {
    const key = this.#key(record.tenant, record.id);
    if (this.rows.has(key)) throw new ConflictError(`artifact ${record.id} already exists`);
    this.rows.set(key, { ...record });
  }

  async get(tenant: string, id: string): Promise<ArtifactRecord | null> {
    const row = this.rows.get(this.#key(tenant, id));
    return row ? { ...row } : null;
  }

  async settle(
    tenant: string,
    id: string,
    outcome: { status: 'ready' | 'rejected'; sha256: string | null; reason: string | null },
  ): Promise<ArtifactRecord | null> {
    const row = this.rows.get(this.#key(tenant, id));
    if (!row || row.status !== 'pending') return null;
    Object.assign(row, outcome);
    return { ...row };
  }
}
