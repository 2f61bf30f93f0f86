import { ConflictError } from '../../shared/domain/errors.ts';
import type { CredentialRecord } from '../../shared/domain/credential.ts';
import type { CredentialRepository } from '../../shared/ports/credential-repository.ts';

/** Credentials in memory, keyed by tenant and alias as the DynamoDB adapter's items are. */
export class InMemoryCredentialRepository implements CredentialRepository {
  readonly rows = new Map<string, CredentialRecord>();
  #key = (tenant: string, alias: string) => `${tenant}/${alias}`;

  async create(record: CredentialRecord): Promise<void> {
    if (this.rows.has(this.#key(record.tenant, record.alias))) throw new ConflictError(`credential ${record.alias} already exists`);
    this.rows.set(this.#key(record.tenant, record.alias), structuredClone(record));
  }

  async get(tenant: string, alias: string): Promise<CredentialRecord | null> {
    const row = this.rows.get(this.#key(tenant, alias));
    return row ? structuredClone(row) : null;
  }

  async list(tenant: string): Promise<CredentialRecord[]> {
    return [...this.rows.values()]
      .filter((row) => row.tenant === tenant)
      .sort((a, b) => (a.alias < b.alias ? -1 : 1))
      .map((row) => structuredClone(row));
  }

  async update(record: CredentialRecord): Promise<void> {
    const row = this.rows.get(this.#key(record.tenant, record.alias));
    if (!row || row.version !== record.version - 1) throw new ConflictError('the credential changed meanwhile; read it again');
    this.rows.set(this.#key(record.tenant, record.alias), structuredClone(record));
  }

  async delete(tenant: string, alias: string): Promise<boolean> {
    return this.rows.delete(this.#key(tenant, alias));
  }

  async touch(tenant: string, alias: string, at: string): Promise<void> {
    const row = this.rows.get(this.#key(tenant, alias));
    if (row) row.last_used_at = at;
  }
}
