import type { CredentialRecord } from '../domain/credential.ts';

/**
 * Port for a tenant's credentials (DESIGN §16), one item per alias in the tenant's partition.
 * Reads and writes are under the caller's tenant only. Writes are conditional: ConflictError when
 * the alias exists (create) or the stored version is not `record.version - 1` (update).
 */
export interface CredentialRepository {
  create(record: CredentialRecord): Promise<void>;
  get(tenant: string, alias: string): Promise<CredentialRecord | null>;
  /** Every credential of the tenant, by alias. */
  list(tenant: string): Promise<CredentialRecord[]>;
  update(record: CredentialRecord): Promise<void>;
  /** false when it did not exist. */
  delete(tenant: string, alias: string): Promise<boolean>;
  /** Sets last_used_at (not the version: a scan's use is not an edit); nothing when it is gone. */
  touch(tenant: string, alias: string, at: string): Promise<void>;
}
