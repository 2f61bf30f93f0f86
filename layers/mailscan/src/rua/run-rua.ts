import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { finding, type ReportFinding } from '../catalogue.ts';
import type { CheckError, RecordedCheck, SurfaceResult } from '../reputation/context.ts';
import { RUA_LIMITS, RuaInputError, type RuaLimits } from '../../../../lib/mail-artifacts/rua-limits.ts';
import { parseAggregateReport, type AggregateReport } from './parse-report.ts';
import { RuaRollup, type RollupRow } from './rollup.ts';
import { readReportFile } from '../../../../lib/mail-artifacts/rua-unpack.ts';

/** Failing messages from one IP at or above this are high severity (issue 9). */
export const HIGH_SEVERITY_FAILING_MESSAGES = 100;
/** Rows and findings kept in the report, most failing first; the totals still count every IP. */
export const MAX_ROWS = 500;

export interface RuaFileSummary {
  file: string;
  reports: number;
  records: number;
  error?: string;
}

export interface RuaRequest {
  domain: string;
  files: readonly string[];
  limits?: RuaLimits;
  log?: (event: string, fields?: Record<string, unknown>) => void;
  /** The scan's deadline: checked between chunks, so a file still being read then is an error entry. */
  deadline?: AbortSignal;
}

/**
 * The rua surface: every file unpacked and parsed within the limits, reports for another domain
 * set aside as errors, the rest rolled up per source IP. One bad file costs its own entry, not the
 * surface; the surface is `error` only when no file yielded a report.
 */
export async function runRua({
  domain,
  files,
  limits = RUA_LIMITS,
  log = () => {},
  deadline,
}: RuaRequest): Promise<SurfaceResult<Record<string, unknown>>> {
  const rollup = new RuaRollup(limits.maxListValues);
  const summaries: RuaFileSummary[] = [];
  const errors: CheckError[] = [];
  const formats = new Set<string>();
  for (const path of files) {
    const name = basename(path);
    const summary: RuaFileSummary = { file: name, reports: 0, records: 0 };
    summaries.push(summary);
    // A file's reports and errors count once the whole file has been read within its bounds: a
    // bomb in its last entry, or a deadline halfway, leaves one error entry and adds nothing.
    const reports: AggregateReport[] = [];
    const fileErrors: CheckError[] = [];
    try {
      if (deadline?.aborted) throw new RuaInputError('not read: the scan deadline was reached first');
      const info = await stat(path);
      if (info.size > limits.maxFileBytes)
        throw new RuaInputError(`file is ${info.size} bytes, over the ${limits.maxFileBytes}-byte limit`);
      await readReportFile(
        name,
        await readFile(path),
        limits,
        async (document) => {
          try {
            const report = await parseAggregateReport(document.chunks, limits);
            if (!sameDomainFamily(report.domain, domain)) {
              fileErrors.push({
                surface: 'rua',
                check: 'report',
                message: `${document.name}: report is for ${report.domain}, not ${domain}; ignored`,
              });
              return;
            }
            reports.push(report);
            if (report.skippedRecords > 0)
              fileErrors.push({
                surface: 'rua',
                check: 'record',
                message: `${document.name}: ${report.skippedRecords} records without a valid source_ip or count were skipped`,
              });
          } catch (error) {
            if (!(error instanceof RuaInputError)) throw error;
            fileErrors.push({ surface: 'rua', check: 'report', message: `${document.name}: ${error.message}` });
          }
        },
        deadline,
      );
      errors.push(...fileErrors);
      // Taken off the list as they are added: a report's records are garbage once rolled up.
      for (let report = reports.shift(); report !== undefined; report = reports.shift()) {
        formats.add(report.format);
        rollup.add(report);
        summary.reports += 1;
        summary.records += report.records.length;
      }
    } catch (error) {
      if (!(error instanceof RuaInputError) && (error as NodeJS.ErrnoException).code === undefined) throw error;
      summary.error = (error as Error).message;
      errors.push({ surface: 'rua', check: 'file', message: `${name}: ${(error as Error).message}` });
    }
    log('rua file read', { file: name, reports: summary.reports, records: summary.records, error: summary.error });
  }

  const { rows, failing } = rollup.result(MAX_ROWS);
  const findings: ReportFinding[] = rows.filter((row) => row.dmarc_fail > 0).map(findingOf);
  const reporters = rollup.reporters();
  const read =
    `${count(rollup.reports, 'aggregate report')} from ${count(summaries.length, 'file')}, ${count(rollup.messages, 'message')} ` +
    `from ${count(rollup.ips, 'source IP')} read (reported by ${reporters.map((reporter) => reporter.org_name).join(', ') || 'nobody'}): ` +
    `${count(failing, 'source')} failing DMARC`;
  // Every file and report handed in is read, or the check could not complete: what was not read is its error.
  const check: RecordedCheck =
    rollup.reports === 0 && errors.length === 0
      ? {
          rules: ['mailscan.dmarc.rua_misalignment'],
          outcome: 'error',
          detail: `no aggregate report in ${count(summaries.length, 'file')}`,
        }
      : errors.length > 0
        ? {
            rules: ['mailscan.dmarc.rua_misalignment'],
            outcome: 'error',
            detail: `${rollup.reports > 0 ? `${read}; ` : ''}not counted: ${errors.map((error) => error.message).join('; ')}`,
          }
        : { rules: ['mailscan.dmarc.rua_misalignment'], outcome: 'ran', detail: read };
  return {
    status: rollup.reports > 0 ? 'ok' : 'error',
    data: {
      files: summaries,
      formats: [...formats].sort(),
      totals: {
        reports: rollup.reports,
        records: rollup.records,
        skipped_records: rollup.skippedRecords,
        messages: rollup.messages,
        dmarc_fail: rollup.dmarcFail,
        source_ips: rollup.ips,
        failing_source_ips: failing,
        first_seen: rows.length ? isoOf(rollup.begin) : null,
        last_seen: rows.length ? isoOf(rollup.end) : null,
      },
      reporters: rollup.reporters(),
      rollup: rows,
      rollup_truncated: rollup.ips - rows.length,
    },
    findings,
    errors,
    checks: [check],
  };
}

function count(value: number, one: string): string {
  return `${value.toLocaleString('en-US')} ${one}${value === 1 ? '' : 's'}`;
}

function findingOf(row: RollupRow): ReportFinding {
  const severity = row.dmarc_fail >= HIGH_SEVERITY_FAILING_MESSAGES ? 'high' : 'medium';
  const detail = `${row.source_ip} sent ${row.dmarc_fail} of ${row.messages} messages that failed DMARC (neither aligned DKIM nor aligned SPF passed), reported by ${row.reporters.join(', ')}.`;
  return finding('mailscan.dmarc.rua_misalignment', severity, detail, { ...row }, `source_ip=${row.source_ip}`);
}

/** A report for the scanned domain, a parent of it or a subdomain of it counts; anything else is another domain's. */
function sameDomainFamily(reported: string, scanned: string): boolean {
  return reported === scanned || reported.endsWith(`.${scanned}`) || scanned.endsWith(`.${reported}`);
}

function isoOf(epoch: number | null): string | null {
  return epoch === null ? null : new Date(epoch * 1000).toISOString();
}
