import type { SlaView } from '../../shared/domain/sla.ts';
import type { SlaRepository } from '../../shared/ports/sla-repository.ts';

/** The SLA port in memory, for unit tests. */
export class InMemorySlaRepository implements SlaRepository {
  readonly rows = new Map<string, SlaView>();
  async get(tenant: string): Promise<SlaView | null> {
    const found = this.rows.get(tenant);
    return found ? { ...found } : null;
  }
  async put(tenant: string, sla: SlaView): Promise<void> {
    this.rows.set(tenant, { ...sla });
  }
}
