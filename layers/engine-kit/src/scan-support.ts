/**
 * What the CLI frame (cli.ts) needs for a scan only, in one dynamic import: `--version`, `--help`
 * and `rules` never load the report's module (zod) or the target policy (node:dns).
 */
export { ReportBuilder } from '../../../lib/report.ts';
export { policyFromEnv, TargetRefused } from '../../../lib/target-policy.ts';
