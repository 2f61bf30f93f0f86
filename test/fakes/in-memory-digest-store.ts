import type { DigestEntry } from '../../shared/domain/digest.ts';
import type { DigestStore } from '../../shared/ports/digest-store.ts';

const keyOf = (entry: DigestEntry) => `${entry.period_end}#${entry.tenant}#${entry.rule_id}#${entry.event_id}`;

/** The digest port in memory: one entry per (period end, tenant, rule, event), as the table keeps them. */
export class InMemoryDigestStore implements DigestStore {
  readonly entries = new Map<string, DigestEntry>();
  async add(entries: readonly DigestEntry[]): Promise<void> {
    for (const entry of entries) this.entries.set(keyOf(entry), { ...entry });
  }
  async due(periodEnd: string): Promise<DigestEntry[]> {
    return [...this.entries.values()].filter((entry) => entry.period_end === periodEnd);
  }
  async remove(entries: readonly DigestEntry[]): Promise<void> {
    for (const entry of entries) this.entries.delete(keyOf(entry));
  }
}
