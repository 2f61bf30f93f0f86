import type { SlaView } from '../domain/sla.ts';

/** Port: a tenant's per-severity SLA (DESIGN §15, docs/digests-and-sla.md), one record a tenant. */
export interface SlaRepository {
  /** The tenant's SLA, or null when it never set one. */
  get(tenant: string): Promise<SlaView | null>;
  /** Replaces the tenant's SLA whole. */
  put(tenant: string, sla: SlaView): Promise<void>;
}
