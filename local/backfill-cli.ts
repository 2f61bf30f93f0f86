import { TenantId } from '../shared/domain/identity.ts';
import type { BackfillProgress, BackfillReport, RollbackReport, RowOutcome } from '../shared/services/backfill-service.ts';
import { dataDirFromEnv, parseCommandLine, portFromEnv, usageError } from './command-line.ts';
import { requireSessionKey } from './session-key.ts';

// `npm run backfill -- [--dry-run] [--tenant T] [--format json|text]` with LEGACY_DATABASE_URL:
// backfill_scan_schedules (DESIGN §9) run by the local service (npm start, found by PORT and
// DATA_DIR), because the local triggers live in that process. Progress goes to stderr, the
// summary to stdout. Exit 0: nothing failed; 1: a row (or the run) failed; 2: usage error.
// `--rollback` removes the migrated schedules and prints the SQL that re-enables the legacy tasks.

const USAGE =
  'usage: npm run backfill -- [--dry-run] [--tenant <schema_name>] [--format json|text] [--rollback]   (LEGACY_DATABASE_URL=postgres://...)\n' +
  '  --rollback: delete the migrated schedules and print the SQL that re-enables the legacy tasks (docs/backfill.md)';

const LABEL: Record<RowOutcome, string> = {
  migrated: 'migrated',
  already_migrated: 'already migrated',
  skipped: 'skipped',
  failed: 'FAILED',
};

const values = parseCommandLine(USAGE, {
  'dry-run': { type: 'boolean', default: false },
  rollback: { type: 'boolean', default: false },
  tenant: { type: 'string' },
  format: { type: 'string', default: 'text' },
});
if (values.format !== 'json' && values.format !== 'text') usageError(USAGE, `--format must be json or text, not ${values.format}`);
if (values.tenant !== undefined && !TenantId.safeParse(values.tenant).success)
  usageError(USAGE, `--tenant ${JSON.stringify(values.tenant)} is not a schema name`);
const databaseUrl = process.env.LEGACY_DATABASE_URL;
if (!databaseUrl)
  usageError(USAGE, 'no database URL: set LEGACY_DATABASE_URL to the legacy PostgreSQL (postgres://user:password@host:5432/db)');

const port = portFromEnv();
const key = await requireSessionKey(dataDirFromEnv());
let response: Response;
try {
  response = await fetch(`http://127.0.0.1:${port}/_local/backfill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-local-admin-key': key },
    body: JSON.stringify({ dry_run: values['dry-run'], rollback: values.rollback, tenant: values.tenant, database_url: databaseUrl }),
  });
} catch {
  process.stderr.write(`no local service on port ${port}: start it with npm start (or set PORT)\n`);
  process.exit(1);
}
if (!response.ok || response.body === null) {
  const text = await response.text();
  process.stderr.write(`the local service refused the backfill (${response.status}): ${text}\n`);
  process.exit(response.status === 400 ? 2 : 1);
}

const tty = process.stderr.isTTY === true;
let current = '';
let report: BackfillReport | null = null;
let rollback: RollbackReport | null = null;
let failure: { code: string; message: string } | null = null;
let buffered = '';
const decoder = new TextDecoder();
for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
  buffered += decoder.decode(chunk, { stream: true });
  let newline: number;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = JSON.parse(buffered.slice(0, newline)) as {
      progress?: BackfillProgress;
      report?: BackfillReport;
      rollback?: RollbackReport;
      error?: { code: string; message: string };
    };
    buffered = buffered.slice(newline + 1);
    if (line.progress) showProgress(line.progress);
    if (line.report) report = line.report;
    if (line.rollback) rollback = line.rollback;
    if (line.error) failure = line.error;
  }
}

if (rollback && !failure) {
  for (const t of rollback.tenants) {
    process.stderr.write(
      `${t.tenant}: ${t.schedules_removed} migrated schedule(s) ${rollback.dry_run ? 'would be ' : ''}removed, ${t.legacy_task_ids.length} legacy task(s) to re-enable\n`,
    );
  }
  if (rollback.tenants.length === 0) process.stderr.write('nothing to roll back: no migrated schedules\n');
  process.stdout.write(values.format === 'json' ? `${JSON.stringify(rollback, null, 2)}\n` : rollback.sql);
  process.exit(0);
}
if (failure || !report) {
  process.stderr.write(
    `backfill ${failure?.code === 'usage_error' ? 'refused' : 'failed'}: ${failure?.message ?? 'the service closed the stream without a report'}\n`,
  );
  process.exit(failure?.code === 'usage_error' ? 2 : 1);
}
process.stdout.write(values.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatText(report));
process.exit(report.totals.failed > 0 ? 1 : 0);

function showProgress(event: BackfillProgress): void {
  if (event.kind === 'tenant') current = `[${event.index + 1}/${event.tenants}] ${event.tenant}`;
  if (event.kind === 'row' && tty) process.stderr.write(`\r\x1b[K${current}: ${event.done}/${event.rows} rows`);
  if (event.kind === 'tenant_done') {
    const r = event.report;
    process.stderr.write(
      `${tty ? '\r\x1b[K' : ''}${current}: ${r.migrated} migrated, ${r.already_migrated} already migrated, ${r.skipped} skipped, ${r.failed} failed\n`,
    );
  }
}

function formatText(r: BackfillReport): string {
  const lines: string[] = [];
  const t = r.totals;
  lines.push(
    `${r.dry_run ? 'Dry run (nothing changed): ' : ''}${t.tenants} tenant(s): ${t.migrated} ${r.dry_run ? 'would be migrated' : 'migrated'}, ${t.already_migrated} already migrated, ${t.skipped} skipped, ${t.failed} failed; ${t.cloud_monitoring_not_migrated} cloud monitoring schedule(s) not migrated`,
  );
  for (const tenant of r.tenants) {
    lines.push(
      '',
      `${tenant.tenant}: ${tenant.migrated} ${r.dry_run ? 'would be migrated' : 'migrated'}, ${tenant.already_migrated} already migrated, ${tenant.skipped} skipped, ${tenant.failed} failed, ${tenant.cloud_monitoring_not_migrated} cloud monitoring not migrated`,
    );
    for (const row of tenant.rows) {
      const label = r.dry_run && row.outcome === 'migrated' ? 'would migrate' : LABEL[row.outcome];
      const what = `${row.model} ${row.legacy_id} ${JSON.stringify(row.name.length > 60 ? `${row.name.slice(0, 59)}…` : row.name)}`;
      const notes = (row.notes ?? []).map((note) => ` (${note})`).join('');
      lines.push(
        `  ${label.padEnd(16)} ${what}${row.schedule_id ? ` → ${row.schedule_id}` : ''}${row.reason ? `: ${row.reason}` : ''}${notes}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
