/** The disposition values of RFC 7489 Appendix C plus DMARCbis's `pass`. */
export type Disposition = 'none' | 'quarantine' | 'reject' | 'pass';
export type AlignedResult = 'pass' | 'fail';

/** One `<record>`: policy_evaluated is the reporter's verdict on alignment (not raw auth_results). */
export interface RuaRecord {
  sourceIp: string;
  count: number;
  disposition: Disposition;
  dkim: AlignedResult;
  spf: AlignedResult;
  headerFrom: string | null;
}

const DISPOSITIONS: readonly Disposition[] = ['none', 'quarantine', 'reject', 'pass'];
const INITIAL_CAPACITY = 1024;

/**
 * One report's records, held compactly until the report has parsed to its end (a report that fails
 * halfway adds nothing to the rollup): the source IP and header_from strings (header_from interned:
 * a report has a handful), counts in a Uint32Array, disposition and alignment in one byte each.
 * 200,000 records cost ~10 MB here, against ~60 MB as one object each.
 */
export class RecordBatch {
  private ips: string[] = [];
  private counts = new Uint32Array(INITIAL_CAPACITY);
  private flags = new Uint8Array(INITIAL_CAPACITY);
  private fromIndex = new Int32Array(INITIAL_CAPACITY);
  private readonly fromValues: string[] = [];
  private readonly fromIds = new Map<string, number>();

  get length(): number {
    return this.ips.length;
  }

  push(record: RuaRecord): void {
    const at = this.ips.length;
    if (at === this.counts.length) this.grow();
    this.ips.push(record.sourceIp);
    this.counts[at] = record.count;
    this.flags[at] = DISPOSITIONS.indexOf(record.disposition) | (record.dkim === 'pass' ? 4 : 0) | (record.spf === 'pass' ? 8 : 0);
    this.fromIndex[at] = record.headerFrom === null ? -1 : this.intern(record.headerFrom);
  }

  forEach(visit: (record: RuaRecord) => void): void {
    for (let at = 0; at < this.ips.length; at += 1) {
      const flags = this.flags[at];
      const from = this.fromIndex[at];
      visit({
        sourceIp: this.ips[at],
        count: this.counts[at],
        disposition: DISPOSITIONS[flags & 3],
        dkim: (flags & 4 ? 'pass' : 'fail') satisfies AlignedResult,
        spf: (flags & 8 ? 'pass' : 'fail') satisfies AlignedResult,
        headerFrom: from === -1 ? null : this.fromValues[from],
      });
    }
  }

  private intern(value: string): number {
    let id = this.fromIds.get(value);
    if (id === undefined) {
      id = this.fromValues.length;
      this.fromValues.push(value);
      this.fromIds.set(value, id);
    }
    return id;
  }

  private grow(): void {
    const size = this.counts.length * 2;
    const counts = new Uint32Array(size);
    counts.set(this.counts);
    this.counts = counts;
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.flags = flags;
    const fromIndex = new Int32Array(size);
    fromIndex.set(this.fromIndex);
    this.fromIndex = fromIndex;
  }
}
