import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue as netCatalogue } from '../../layers/netscan/src/index.ts';
import { buildEngineOf } from '../../layers/build.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { startLegacyPostgres, tenantSchemaSql, type LegacyPostgres } from '../helpers/legacy-postgres.ts';
import { closedTcpPort } from '../helpers/closed-port.ts';
import { SESSION_KEY, startTestService, type TestService } from '../helpers/local-service.ts';
import { REDIS_SERVER, startFtp, startRedis, type Listener } from '../../layers/netscan/test/helpers/listeners.ts';

const MINUTE = 60_000;
const TENANT = 'netlab';

/**
 * DESIGN §9 and §14 end to end: a legacy Continuous Network schedule (target and `ports` text) is
 * migrated by the backfill as a `vm` schedule, fires in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), and the real netscan binary scans exactly its ports
 * through the engine runner: a real redis-server, an FTP greeting, and a closed port.
 */
describe.skipIf(!existsSync(REDIS_SERVER))('a migrated Continuous Network schedule through the local runtime', () => {
  let service: TestService;
  let legacy: LegacyPostgres;
  let redis: Listener;
  let ftp: Listener;
  let closed: number;

  beforeAll(async () => {
    [redis, ftp, closed] = await Promise.all([startRedis(), startFtp(), closedTcpPort()]);
    legacy = await startLegacyPostgres({
      load: async (db: PGlite) => {
        await db.exec(`CREATE TABLE public.tenants_tenant (id serial PRIMARY KEY, schema_name varchar(63) NOT NULL UNIQUE, name varchar(100) NOT NULL);
          INSERT INTO public.tenants_tenant (schema_name, name) VALUES ('public', 'Public'), ('${TENANT}', 'Network lab');`);
        await db.exec(await tenantSchemaSql(TENANT));
        await db.exec(`
          INSERT INTO ${TENANT}.django_celery_beat_crontabschedule (id, minute, hour, day_of_week, day_of_month, month_of_year, timezone) VALUES (1, '*/5', '*', '*', '*', '*', 'UTC');
          INSERT INTO ${TENANT}.django_celery_beat_periodictask (id, name, task, kwargs, enabled, one_off, crontab_id, interval_id, last_run_at, total_run_count, date_changed)
            VALUES (1, 'network-1', 'network.tasks.continuous_scan', '{"schedule_id": 1}', true, false, 1, NULL, '2025-06-01T02:00:00Z', 3, '2025-01-01T00:00:00Z');
          INSERT INTO ${TENANT}.django_celery_beat_periodictasks (ident, last_update) VALUES (1, '2025-01-01T00:00:00Z');
          INSERT INTO ${TENANT}.network_continuousschedule (id, name, target, ports, periodic_task_id, created_at)
            VALUES (1, 'Lab services', '127.0.0.1', '${redis.port},${ftp.port},${closed}', 1, '2024-05-01T00:00:00Z');`);
      },
    });
    const dist = await mkdtemp(join(tmpdir(), 'vm-e2e-'));
    await buildEngineOf('netscan', join(dist, 'bin', 'netscan'));
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['vm', runners.get('vm')!]]) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await legacy?.stop();
    await Promise.all([redis?.close(), ftp?.close()]);
  });

  it('migrates the row as a vm schedule with its ports, fires it, and scans exactly those ports', async () => {
    const response = await fetch(`${service.runtime.url}/_local/backfill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-local-admin-key': SESSION_KEY },
      body: JSON.stringify({ database_url: legacy.url }),
    });
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { report?: { totals: { migrated: number } } });
    expect(lines.find((line) => line.report)?.report?.totals.migrated).toBe(1);

    const token = await service.token(TENANT, 'operator');
    const [schedule] = (await service.call('/api/scans/schedules/', { token })).body.items;
    expect(schedule).toMatchObject({
      scan_type: 'vm',
      target: '127.0.0.1',
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
      scope: { ports: `${redis.port},${ftp.port},${closed}` },
    });

    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();

    const fired = (await service.call(`/api/scans/schedules/${schedule.id}/`, { token })).body;
    const scan = (await service.call(`/api/scans/${fired.last_scan_id}/`, { token })).body;
    const findings = (await service.call(`/api/findings/?scan_id=${scan.id}`, { token })).body.items as {
      rule_id: string;
      evidence: { port: number; service: string };
    }[];
    expect(scan.errors).toEqual([]);
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'vm', trigger: 'cron' });
    expect(fired.last_run_status).toBe('success');
    const open = findings.filter((f) => f.rule_id === 'net.port.open').map((f) => [f.evidence.port, f.evidence.service]);
    expect(open.sort()).toEqual(
      [
        [redis.port, 'redis'],
        [ftp.port, 'ftp'],
      ].sort(),
    );
    expect(findings.filter((f) => f.rule_id === 'net.exposed.database').map((f) => f.evidence.port)).toEqual([redis.port]);
    expect(findings.filter((f) => f.rule_id === 'net.cleartext.protocol').map((f) => f.evidence.port)).toEqual([ftp.port]);
    // vm, not vapt: no access probes; no OSV service configured here.
    expect(scan.checks.map((check: { id: string }) => check.id)).toEqual(netCatalogue.map((rule) => rule.rule_id));
    const status = Object.fromEntries(scan.checks.map((check: { id: string; status: string }) => [check.id, check.status]));
    expect(status).toMatchObject({ 'net.unauthenticated.access': 'skipped', 'vm.vulnerable_version': 'skipped', 'net.port.open': 'fail' });
  });
});
