import type { IssueView } from './issue.ts';

/** The export's columns, in order (GET /api/issues/export.csv). */
export const ISSUE_CSV_COLUMNS = [
  'id',
  'status',
  'severity',
  'rule_id',
  'title',
  'subject',
  'scan_type',
  'scan_types',
  'target',
  'first_seen_at',
  'last_seen_at',
  'occurrence_count',
  'reopened_count',
  'last_scan_id',
  'schedule_id',
  'resolved_at',
  'status_reason',
  'status_until',
  'assignee',
  'due_at',
  'overdue',
] as const satisfies readonly (keyof IssueView)[];

/**
 * One CSV cell (RFC 4180) that a spreadsheet shows as text. Every cell is quoted, so no importer
 * guesses a type or splits one. A cell a spreadsheet would read as a formula (starting with = + - @,
 * or a tab or carriage return that some strip first) gets a leading apostrophe (OWASP's CSV
 * injection advice), and so does every = + - @ that follows a ; or , inside it: an importer that
 * splits on the other separator (a semicolon locale) would start a cell there.
 */
export function csvCell(value: string | number | boolean | readonly string[] | null | undefined): string {
  let text = value === null || value === undefined ? '' : Array.isArray(value) ? value.join(' ') : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  text = text.replace(/([;,])([=+\-@])/g, "$1'$2");
  return `"${text.replaceAll('"', '""')}"`;
}

/** One CSV record with its CRLF. */
export function csvLine(values: readonly (string | number | boolean | readonly string[] | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
