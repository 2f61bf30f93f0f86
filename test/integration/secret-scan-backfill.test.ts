import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { LOCAL_TABLE_NAME } from '../../local/runtime.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { sha256Hex } from '../../layers/secretscan/src/secret-evidence.ts';
import { gitAvailable, startGitServer, type GitServer } from '../helpers/git-http-server.ts';
import { startLegacyPostgres, tenantSchemaSql, type LegacyPostgres } from '../helpers/legacy-postgres.ts';
import { SESSION_KEY, startTestService, type TestService } from '../helpers/local-service.ts';
import { tableClient } from '../security/store-state.ts';
import { plantSecrets, type Planted } from '../../layers/secretscan/test/planted.ts';
import { repositoryRoot } from '../../infra/paths.ts';

/**
 * DESIGN §9 and §13 end to end: a legacy Secret Scan row is migrated by the backfill and its first
 * fire runs the real secretscan executable through the local runtime (scheduler → queue →
 * dispatch → engine runner) against a repository on git http-backend. Then no planted secret is
 * anywhere: not in a DynamoDB item, not in a scan log line.
 */
describe.skipIf(!gitAvailable())('a migrated Secret Scan schedule fires end to end', () => {
  let git: GitServer;
  let legacy: LegacyPostgres;
  let service: TestService;
  let work: string;
  let planted: Planted;
  let historyOnly: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'secret-scan-backfill-'));
    git = await startGitServer();
    planted = plantSecrets();
    historyOnly = planted.slackToken;
    const repo = await git.repository('acme/app');
    await repo.commit('config', {
      'config/prod.env': `AWS_ACCESS_KEY_ID=${planted.awsKeyId}\naws_secret_access_key = "${planted.awsSecret}"\n`,
      'src/client.js': `export const auth = '${planted.githubToken}';\n`,
    });
    await repo.commit('release script', {
      'scripts/release.sh': `curl -H "Authorization: Bearer ${historyOnly}" https://slack.example/\n`,
    });
    await repo.commit('remove the script', { 'scripts/release.sh': null });

    const url = `${git.origin}/acme/app.git`;
    legacy = await startLegacyPostgres({
      load: async (db) => {
        await db.exec(await readFile(join(repositoryRoot, 'test/fixtures/legacy/public.sql'), 'utf8'));
        await db.exec(await tenantSchemaSql('acme'));
        await db.exec(`
          INSERT INTO acme.django_celery_beat_crontabschedule (id, minute, hour, day_of_week, day_of_month, month_of_year, timezone) VALUES (1, '0', '2', '*', '*', '*', 'UTC');
          INSERT INTO acme.django_celery_beat_periodictask (id, name, task, kwargs, enabled, one_off, crontab_id, interval_id, last_run_at, total_run_count, date_changed) VALUES (1, 'secretscan-1', 'secretscan.tasks.run_scan', '{"schedule_id": 1}', true, false, 1, NULL, NULL, 0, '2025-01-01T00:00:00Z');
          INSERT INTO acme.django_celery_beat_periodictasks (ident, last_update) VALUES (1, '2025-01-01T00:00:00Z');
          INSERT INTO acme.secretscan_schedule (id, name, repository_url, periodic_task_id, scan_options, created_at) VALUES (1, 'App nightly', '${url}', 1, '{"branches": ["main"], "depth": 100}', '2024-05-01T00:00:00Z');
        `);
      },
    });
    const bin = await buildEngineOf('secretscan', join(work, 'dist', 'bin', 'secretscan'));
    const runners = makeEngineRunners({ binDir: join(work, 'dist', 'bin'), env: { PATH: process.env.PATH }, allowLoopback: true });
    service = await startTestService({
      allowLoopbackTargets: true,
      dataDir: join(work, 'data'),
      runners: new Map([['secret_scan', runners.get('secret_scan')!]]),
    });
    expect(bin).toContain('secretscan');
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await legacy?.stop();
    await git?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('migrates the row, fires it, stores the findings, and keeps no secret anywhere', async () => {
    // act: the backfill
    const response = await fetch(`${service.runtime.url}/_local/backfill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-local-admin-key': SESSION_KEY },
      body: JSON.stringify({ database_url: legacy.url, tenant: 'acme' }),
    });
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const report = lines.find((line) => line.report)?.report;
    expect(lines.filter((line) => line.error)).toEqual([]);
    expect(report.tenants[0].rows.map((row: { outcome: string; reason?: string }) => row.reason ?? row.outcome)).toEqual(['migrated']);
    expect(report.totals).toMatchObject({ migrated: 1, skipped: 0, failed: 0 });
    const [migrated] = report.tenants[0].rows;
    const [task] = await legacy.query<{ enabled: boolean }>('SELECT enabled FROM acme.django_celery_beat_periodictask WHERE id = 1');
    expect(task.enabled).toBe(false);
    const token = await service.token('acme', 'operator');
    const { body: schedule } = await service.call(`/api/scans/schedules/${migrated.schedule_id}/`, { token });
    expect(schedule).toMatchObject({
      scan_type: 'secret_scan',
      target: `${git.origin}/acme/app.git`,
      scope: { branch: 'main', max_commits: 100, source_legacy_model: 'secretscan.schedule', source_legacy_id: '1' },
      enabled: true,
    });

    // act: its first fire (02:00 UTC the next day)
    service.clock.set('2026-03-03T02:00:30Z');
    await service.runtime.drain();

    // assert: the scan and its findings
    const { body: fired } = await service.call(`/api/scans/schedules/${migrated.schedule_id}/`, { token });
    expect(fired.last_run_status).toBe('success');
    const { body: scan } = await service.call(`/api/scans/${fired.last_scan_id}/`, { token });
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'secret_scan', errors: [] });
    const { body: findings } = await service.call(`/api/findings/?scan_id=${fired.last_scan_id}`, { token });
    const byRule = Object.fromEntries(findings.items.map((finding: any) => [finding.rule_id, finding]));
    expect(Object.keys(byRule).sort()).toEqual([
      'secret.aws_access_key',
      'secret.aws_access_key_id',
      'secret.github_token',
      'secret.slack_token',
    ]);
    expect(byRule['secret.aws_access_key']).toMatchObject({ severity: 'critical', evidence: { path: 'config/prod.env', in_head: true } });
    expect(byRule['secret.slack_token']).toMatchObject({
      evidence: { path: 'scripts/release.sh', in_head: false, sha256: sha256Hex(historyOnly) },
    });

    // assert: no planted value in any DynamoDB item or scan log line
    const client = tableClient(service.runtime);
    const items: unknown[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME, ExclusiveStartKey: startKey }));
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    const logDir = join(work, 'data', 'logs', 'scans');
    const logs = await Promise.all(
      (await readdir(logDir, { recursive: true })).map((name) => readFile(join(logDir, name), 'utf8').catch(() => '')),
    );
    const stored = [...items.map((item) => JSON.stringify(item)), ...logs.flatMap((text) => text.split('\n'))];
    expect(stored.length).toBeGreaterThan(10);
    for (const value of [planted.awsKeyId, planted.awsSecret, planted.githubToken, historyOnly]) {
      expect(stored.filter((line) => line.includes(value))).toEqual([]);
    }
  }, 180_000);
});
