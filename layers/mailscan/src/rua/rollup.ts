import type { AggregateReport, Disposition } from './parse-report.ts';

/** One source IP across every accepted report: the evidence of a rua_misalignment finding. */
export interface RollupRow {
  source_ip: string;
  messages: number;
  /** Messages where neither aligned DKIM nor aligned SPF passed (DMARC fail). */
  dmarc_fail: number;
  disposition: Record<Disposition, number>;
  dkim_aligned: { pass: number; fail: number };
  spf_aligned: { pass: number; fail: number };
  header_from: string[];
  reporters: string[];
  /** The covered period, from the reports' date ranges (ISO 8601), null when no report gave one. */
  first_seen: string | null;
  last_seen: string | null;
}

export interface ReporterSummary {
  org_name: string;
  email: string | null;
  reports: number;
  messages: number;
}

/**
 * Counters per source IP, one column each (see `RuaRollup`). The rest follow from these: DKIM and
 * SPF fail are messages minus pass, disposition none is messages minus the other three.
 */
const COLUMNS = ['messages', 'dmarc_fail', 'quarantine', 'reject', 'pass', 'dkimPass', 'spfPass'] as const;
type Column = (typeof COLUMNS)[number];
const INITIAL_ROWS = 1024;

/**
 * Accumulates reports into per-IP rows; reports arrive one at a time so only the rows stay in
 * memory, and those compactly: an IP's counters are one slot in a Float64Array per column, its
 * begin/end in two more, its header_from and reporter values interned strings with the first one
 * inline (a row rarely has a second). The columns grow once per report to the rows it needs (not
 * by doubling past them). 200,000 distinct IPs cost ~25 MB instead of ~105 MB as one object per
 * IP; `RollupRow` objects are built only for the rows the report keeps.
 */
export class RuaRollup {
  private readonly index = new Map<string, number>();
  private readonly ipOf: string[] = [];
  private columns = Object.fromEntries(COLUMNS.map((name) => [name, new Float64Array(INITIAL_ROWS)])) as Record<Column, Float64Array>;
  private begins = new Float64Array(INITIAL_ROWS).fill(Number.NaN);
  private ends = new Float64Array(INITIAL_ROWS).fill(Number.NaN);
  private readonly lists = { header_from: new RowLists(), reporters: new RowLists() };
  private readonly reporterMap = new Map<string, ReporterSummary>();
  reports = 0;
  records = 0;
  messages = 0;
  dmarcFail = 0;
  skippedRecords = 0;
  begin: number | null = null;
  end: number | null = null;

  constructor(private readonly maxListValues: number) {}

  add(report: AggregateReport): void {
    this.reports += 1;
    this.skippedRecords += report.skippedRecords;
    this.begin = minOf(this.begin, report.begin);
    this.end = maxOf(this.end, report.end);
    const reporterKey = `${report.orgName}\u0000${report.email ?? ''}`;
    const reporter = this.reporterMap.get(reporterKey) ?? { org_name: report.orgName, email: report.email, reports: 0, messages: 0 };
    reporter.reports += 1;
    this.reporterMap.set(reporterKey, reporter);
    // Rows first, so the columns grow once to what this report needs.
    const rows = new Int32Array(report.records.length);
    let at = 0;
    report.records.forEach((record) => {
      rows[at++] = this.rowOf(record.sourceIp);
    });
    this.reserve(this.ipOf.length);
    const { messages, dmarc_fail: dmarcFail, dkimPass, spfPass } = this.columns;
    at = 0;
    report.records.forEach((record) => {
      const row = rows[at++];
      const count = record.count;
      this.records += 1;
      this.messages += count;
      reporter.messages += count;
      messages[row] += count;
      if (record.disposition !== 'none') this.columns[record.disposition][row] += count;
      if (record.dkim === 'pass') dkimPass[row] += count;
      if (record.spf === 'pass') spfPass[row] += count;
      if (record.dkim === 'fail' && record.spf === 'fail') {
        dmarcFail[row] += count;
        this.dmarcFail += count;
      }
      if (record.headerFrom !== null) this.lists.header_from.add(row, record.headerFrom, this.maxListValues);
      this.lists.reporters.add(row, report.orgName, this.maxListValues);
      if (report.begin !== null && !(this.begins[row] <= report.begin)) this.begins[row] = report.begin;
      if (report.end !== null && !(this.ends[row] >= report.end)) this.ends[row] = report.end;
    });
  }

  /**
   * The first `limit` rows, most DMARC-failing messages first, then most messages, then by IP for a
   * stable order, and how many rows have failing messages in all. Only the kept rows are sorted:
   * the rest are passed over once (a bounded heap), not sorted with them.
   */
  result(limit: number): { rows: RollupRow[]; failing: number } {
    const { dmarc_fail: fail, messages } = this.columns;
    const before = (a: number, b: number) => fail[b] - fail[a] || messages[b] - messages[a] || this.ipOf[a].localeCompare(this.ipOf[b]);
    const kept = new KeptRows(limit, before);
    let failing = 0;
    for (let row = 0; row < this.ipOf.length; row += 1) {
      if (fail[row] > 0) failing += 1;
      kept.offer(row);
    }
    return { rows: kept.sorted().map((row) => this.rollupRow(row)), failing };
  }

  get ips(): number {
    return this.ipOf.length;
  }

  private rowOf(ip: string): number {
    let row = this.index.get(ip);
    if (row === undefined) {
      row = this.ipOf.length;
      this.ipOf.push(ip);
      this.index.set(ip, row);
    }
    return row;
  }

  /** Room for `rows` rows: exactly, or half again as many when that is more (many small reports). */
  private reserve(rows: number): void {
    if (rows <= this.begins.length) return;
    const size = Math.max(rows, Math.floor(this.begins.length * 1.5));
    const widen = (column: Float64Array, fill = 0) => {
      const wider = new Float64Array(size);
      if (fill !== 0) wider.fill(fill, column.length);
      wider.set(column);
      return wider;
    };
    this.columns = Object.fromEntries(COLUMNS.map((name) => [name, widen(this.columns[name])])) as Record<Column, Float64Array>;
    this.begins = widen(this.begins, Number.NaN);
    this.ends = widen(this.ends, Number.NaN);
  }

  private rollupRow(row: number): RollupRow {
    const value = (column: Column) => this.columns[column][row];
    const epoch = (stored: number) => (Number.isNaN(stored) ? null : stored);
    const messages = value('messages');
    return {
      source_ip: this.ipOf[row],
      messages,
      dmarc_fail: value('dmarc_fail'),
      disposition: {
        none: messages - value('quarantine') - value('reject') - value('pass'),
        quarantine: value('quarantine'),
        reject: value('reject'),
        pass: value('pass'),
      },
      dkim_aligned: { pass: value('dkimPass'), fail: messages - value('dkimPass') },
      spf_aligned: { pass: value('spfPass'), fail: messages - value('spfPass') },
      header_from: this.lists.header_from.of(row),
      reporters: this.lists.reporters.of(row),
      first_seen: isoOf(epoch(this.begins[row])),
      last_seen: isoOf(epoch(this.ends[row])),
    };
  }

  reporters(): ReporterSummary[] {
    return [...this.reporterMap.values()].sort((a, b) => b.messages - a.messages || a.org_name.localeCompare(b.org_name));
  }
}

/**
 * Up to `max` distinct strings per row: the first inline (interned, one array slot per row), the
 * rest in a map for the few rows that have them.
 */
class RowLists {
  private readonly first: (string | undefined)[] = [];
  private readonly more = new Map<number, string[]>();
  private readonly interned = new Map<string, string>();

  add(row: number, value: string, max: number): void {
    const first = this.first[row];
    if (first === undefined) {
      this.first[row] = this.intern(value);
      return;
    }
    if (first === value) return;
    const more = this.more.get(row) ?? [];
    if (1 + more.length < max && !more.includes(value)) {
      more.push(this.intern(value));
      this.more.set(row, more);
    }
  }

  of(row: number): string[] {
    const first = this.first[row];
    return first === undefined ? [] : [first, ...(this.more.get(row) ?? [])];
  }

  private intern(value: string): string {
    const known = this.interned.get(value);
    if (known !== undefined) return known;
    this.interned.set(value, value);
    return value;
  }
}

/**
 * The `limit` rows that come first in `before`'s order: a binary heap whose root is the last of
 * those kept, so a row that does not beat it costs one comparison.
 */
class KeptRows {
  private readonly heap: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly before: (a: number, b: number) => number,
  ) {}

  offer(row: number): void {
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(row);
      this.up(heap.length - 1);
    } else if (this.limit > 0 && this.before(row, heap[0]) < 0) {
      heap[0] = row;
      this.down(0);
    }
  }

  sorted(): number[] {
    return [...this.heap].sort(this.before);
  }

  /** The heap's order is reversed: a parent comes after its children. */
  private after(a: number, b: number): boolean {
    return this.before(this.heap[a], this.heap[b]) > 0;
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b], this.heap[a]];
  }

  private up(at: number): void {
    for (let child = at; child > 0;) {
      const parent = (child - 1) >> 1;
      if (!this.after(child, parent)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private down(at: number): void {
    for (let parent = at; ;) {
      const left = 2 * parent + 1;
      let last = parent;
      if (left < this.heap.length && this.after(left, last)) last = left;
      if (left + 1 < this.heap.length && this.after(left + 1, last)) last = left + 1;
      if (last === parent) return;
      this.swap(parent, last);
      parent = last;
    }
  }
}

function minOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

function isoOf(epoch: number | null): string | null {
  return epoch === null ? null : new Date(epoch * 1000).toISOString();
}
