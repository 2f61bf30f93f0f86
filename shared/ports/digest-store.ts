import type { DigestEntry } from '../domain/digest.ts';

/** Port: events held for notification digests until their period ends (docs/digests-and-sla.md). */
export interface DigestStore {
  /** Holds entries; adding the same event for the same rule twice keeps one (redeliveries). */
  add(entries: readonly DigestEntry[]): Promise<void>;
  /** Every entry due at `periodEnd` (an hour's end), of every tenant and rule. */
  due(periodEnd: string): Promise<DigestEntry[]>;
  /** Forgets entries once their digest is sent. */
  remove(entries: readonly DigestEntry[]): Promise<void>;
}
