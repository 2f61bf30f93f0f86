import { parseArgs } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import { makePostgresLegacySource } from '../shared/adapters/postgres/postgres-legacy-source.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { silentLogger } from '../test/fakes/silent-logger.ts';
import { makeBackfillService } from '../shared/services/backfill-service.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import type { ScanType } from '../shared/domain/scan-types.ts';
import type { ScanRunner } from '../shared/ports/scan-runner.ts';
import { startLegacyPostgres, tenantSchemaSql } from '../test/helpers/legacy-postgres.ts';

// `npm run bench:backfill [-- --tenants 50 --rows 200]`: a legacy database of N tenants × M
// schedules (PGlite over the wire protocol, half secret scans, half continuous network scans, a
// mix of crontabs and intervals), migrated into the local runtime (dynalite, local triggers) by
// the same service `npm run backfill` runs. Prints the dry-run time and schedules migrated per
// second. Figures, not assertions.

const { values } = parseArgs({ options: { tenants: { type: 'string', default: '50' }, rows: { type: 'string', default: '200' } } });
const tenantCount = Number(values.tenants);
const rowsPerTenant = Number(values.rows);

const CRONTABS = [
  "('0', '2', '*', '*', '*', 'UTC')",
  "('30', '9', '1-5', '*', '*', 'Europe/Paris')",
  "('*/15', '8-18', 'mon-fri', '*', '*', 'America/New_York')",
  "('0', '4', '*', '1', '*', 'UTC')",
];
const INTERVALS = ["(6, 'hours')", "(30, 'minutes')", "(1, 'days')"];

async function load(db: PGlite): Promise<void> {
  const tenants = Array.from({ length: tenantCount }, (_, i) => `tenant_${String(i).padStart(3, '0')}`);
  await db.exec(`CREATE TABLE public.tenants_tenant (id serial PRIMARY KEY, schema_name varchar(63) NOT NULL UNIQUE, name varchar(100) NOT NULL);
    INSERT INTO public.tenants_tenant (schema_name, name) VALUES ('public', 'Public'), ${tenants.map((t) => `('${t}', '${t}')`).join(', ')};`);
  for (const t of tenants) {
    const tasks: string[] = [];
    const secrets: string[] = [];
    const networks: string[] = [];
    for (let i = 1; i <= rowsPerTenant; i++) {
      const cron = i % 2 === 0 ? String((i % CRONTABS.length) + 1) : 'NULL';
      const interval = i % 2 === 0 ? 'NULL' : String((i % INTERVALS.length) + 1);
      tasks.push(`(${i}, 'task-${i}', 'legacy.run', ${i % 10 !== 0}, false, ${cron}, ${interval}, now())`);
      if (i <= rowsPerTenant / 2) secrets.push(`(${i}, 'repo ${i}', 'https://github.com/${t}/repo-${i}', ${i}, '{}', now())`);
      else networks.push(`(${i}, 'net ${i}', '10.${i % 250}.0.0/24', '22,443', ${i}, now())`);
    }
    await db.exec(`${await tenantSchemaSql(t)}
      INSERT INTO ${t}.django_celery_beat_crontabschedule (minute, hour, day_of_week, day_of_month, month_of_year, timezone) VALUES ${CRONTABS.join(', ')};
      INSERT INTO ${t}.django_celery_beat_intervalschedule (every, period) VALUES ${INTERVALS.join(', ')};
      INSERT INTO ${t}.django_celery_beat_periodictask (id, name, task, enabled, one_off, crontab_id, interval_id, date_changed) VALUES ${tasks.join(', ')};
      INSERT INTO ${t}.django_celery_beat_periodictasks (ident, last_update) VALUES (1, now());
      ${secrets.length ? `INSERT INTO ${t}.secretscan_schedule (id, name, repository_url, periodic_task_id, scan_options, created_at) VALUES ${secrets.join(', ')};` : ''}
      ${networks.length ? `INSERT INTO ${t}.network_continuousschedule (id, name, target, ports, periodic_task_id, created_at) VALUES ${networks.join(', ')};` : ''}`);
  }
}

const loadStarted = performance.now();
const legacy = await startLegacyPostgres({ load });
process.stderr.write(
  `legacy database: ${tenantCount} tenants × ${rowsPerTenant} schedules loaded in ${Math.round(performance.now() - loadStarted)} ms\n`,
);
// Half the rows scan 10.x ranges, as a legacy deployment scanning its own network would: this one allows private targets.
// The backfill migrates only scan types with a runner (DESIGN §9); it never runs a scan, so these runners are never called.
const notRunHere = (name: string): ScanRunner => ({
  name,
  run: () => Promise.reject(new Error(`${name} is not run by the backfill bench`)),
});
const runners = new Map<ScanType, ScanRunner>([
  ['secret_scan', notRunHere('secretscan')],
  ['vm', notRunHere('netscan')],
]);
const runtime = await startLocalRuntime({
  logger: silentLogger,
  quota: Math.max(500, rowsPerTenant),
  allowPrivateTargets: true,
  runners,
});
const source = makePostgresLegacySource({ connectionString: legacy.url });
const backfill = makeBackfillService({
  source,
  markers: runtime.legacyMarkers,
  schedules: runtime.schedules,
  clock: { now: () => new Date() },
  ids: makeUlidGenerator(),
  logger: silentLogger,
});
const progress = (event: { kind: string }) => {
  if (event.kind === 'tenant_done') process.stderr.write('.');
};

try {
  let started = performance.now();
  const dry = await backfill.run({ dryRun: true, onProgress: progress });
  const dryMs = performance.now() - started;
  process.stderr.write('\n');

  started = performance.now();
  const real = await backfill.run({ dryRun: false, onProgress: progress });
  const realMs = performance.now() - started;
  process.stderr.write('\n');

  started = performance.now();
  const again = await backfill.run({ dryRun: false, onProgress: progress });
  const againMs = performance.now() - started;
  process.stderr.write('\n');

  const rows = tenantCount * rowsPerTenant;
  console.log(`legacy schedules:            ${rows} (${tenantCount} tenants × ${rowsPerTenant})`);
  console.log(
    `dry run:                     ${(dryMs / 1000).toFixed(1)} s (${dry.totals.migrated} would be migrated, ${dry.totals.skipped} skipped)`,
  );
  console.log(
    `real run:                    ${(realMs / 1000).toFixed(1)} s, ${real.totals.migrated} migrated, ${real.totals.failed} failed`,
  );
  console.log(`schedules migrated / second: ${(real.totals.migrated / (realMs / 1000)).toFixed(0)}`);
  console.log(`second run (all already):    ${(againMs / 1000).toFixed(1)} s, ${again.totals.already_migrated} already migrated`);
  console.log(`DynamoDB requests:           ${[...runtime.dynamoRequests].map(([command, n]) => `${command} ${n}`).join(', ')}`);
} finally {
  await source.close();
  await runtime.stop();
  await legacy.stop();
}
