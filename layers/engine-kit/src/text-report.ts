import type { EngineReport } from '../../../lib/report.ts';
import { severityRank } from '../../../lib/severity.ts';

/** An engine's own lines (`EngineDefinition.textLines`): `before` the title, `details` after the checks line. */
export interface TextLines {
  before?: readonly string[];
  details?: readonly string[];
}

/** `--format text`: what a person reads in a terminal. The JSON report is the contract. */
export function renderText(report: EngineReport, own: TextLines = {}): string {
  const count = (status: string) => report.checks.filter((check) => check.status === status).length;
  const lines = [
    ...(own.before ?? []),
    `${report.scanner.name} ${report.scanner.version}: ${report.target} (${report.status})`,
    `checks: ${count('pass')} passed, ${count('fail')} failed, ${count('error')} errored, ${count('skipped')} skipped`,
    ...(own.details ?? []),
    '',
  ];
  const findings = [...report.findings].sort((a, b) => severityRank(a.severity) - severityRank(b.severity));
  if (findings.length === 0) lines.push(count('error') === 0 ? 'No findings.' : 'No findings, but some checks could not complete (below).');
  for (const finding of findings) {
    lines.push(`[${finding.severity.toUpperCase()}] ${finding.rule_id}: ${finding.title}`, `    ${finding.detail}`);
  }
  if (report.errors.length > 0) {
    lines.push('', 'Checks that could not complete:');
    for (const error of report.errors) lines.push(`  ${error.check}: ${error.message}`);
  }
  return `${lines.join('\n')}\n`;
}
