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

/** Accumulates reports into per-IP rows; reports arrive one at a time so only the rows stay in memory. */
export class RuaRollup {
  private readonly rows = new Map<string, RollupRow & { begin: number | null; end: number | null }>();
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
    for (const record of report.records) {
      this.records += 1;
      this.messages += record.count;
      reporter.messages += record.count;
      let row = this.rows.get(record.sourceIp);
      if (row === undefined) {
        row = {
          source_ip: record.sourceIp,
          messages: 0,
          dmarc_fail: 0,
          disposition: { none: 0, quarantine: 0, reject: 0, pass: 0 },
          dkim_aligned: { pass: 0, fail: 0 },
          spf_aligned: { pass: 0, fail: 0 },
          header_from: [],
          reporters: [],
          first_seen: null,
          last_seen: null,
          begin: null,
          end: null,
        };
        this.rows.set(record.sourceIp, row);
      }
      row.messages += record.count;
      row.disposition[record.disposition] += record.count;
      row.dkim_aligned[record.dkim] += record.count;
      row.spf_aligned[record.spf] += record.count;
      if (record.dkim === 'fail' && record.spf === 'fail') {
        row.dmarc_fail += record.count;
        this.dmarcFail += record.count;
      }
      if (record.headerFrom !== null) addBounded(row.header_from, record.headerFrom, this.maxListValues);
      addBounded(row.reporters, report.orgName, this.maxListValues);
      row.begin = minOf(row.begin, report.begin);
      row.end = maxOf(row.end, report.end);
    }
  }

  /** Rows, most DMARC-failing messages first, then most messages, then by IP for a stable order. */
  result(): RollupRow[] {
    return [...this.rows.values()]
      .map(({ begin, end, ...row }) => ({ ...row, first_seen: isoOf(begin), last_seen: isoOf(end) }))
      .sort((a, b) => b.dmarc_fail - a.dmarc_fail || b.messages - a.messages || a.source_ip.localeCompare(b.source_ip));
  }

  reporters(): ReporterSummary[] {
    return [...this.reporterMap.values()].sort((a, b) => b.messages - a.messages || a.org_name.localeCompare(b.org_name));
  }

  get ips(): number {
    return this.rows.size;
  }
}

function addBounded(list: string[], value: string, max: number): void {
  if (list.length < max && !list.includes(value)) list.push(value);
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
