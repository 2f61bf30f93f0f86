import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue as tlsCatalogue } from '../../layers/tlsscan/src/index.ts';
import { buildEngineOf } from '../../layers/build.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { expectPassesSayWhy } from '../helpers/pass-details.ts';
import { makeTestPki, writeServerFiles } from '../../layers/tlsscan/test/helpers/pki.ts';
import { hasBinary, startOpenSslServer, type LocalServer } from '../../layers/tlsscan/test/helpers/servers.ts';

const MINUTE = 60_000;

/**
 * DESIGN §11/§12 end to end: a scheduled `ssl` scan fires in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), the real tlsscan binary scans an `openssl s_server`
 * through the engine runner, and the job stores its findings and one check per catalogue rule.
 */
describe.skipIf(!hasBinary('openssl'))('a scheduled ssl scan through the local runtime', () => {
  let service: TestService;
  let server: LocalServer;
  let rootPem: string;

  beforeAll(async () => {
    const pki = await makeTestPki();
    rootPem = pki.root.pem;
    const leaf = await pki.leaf({ names: ['localhost'] });
    const files = await writeServerFiles(leaf, [pki.intermediate.pem]);
    server = await startOpenSslServer(files.args);
    const dist = await mkdtemp(join(tmpdir(), 'ssl-e2e-'));
    await buildEngineOf('tlsscan', join(dist, 'bin', 'tlsscan'));
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['ssl', runners.get('ssl')!]]) });
  });
  afterAll(async () => {
    await service?.stop();
    await server?.close();
  });

  it('fires, scans the server with the real engine, and stores findings, every check and the schedule run', async () => {
    const tenant = freshTenant('tls');
    const token = await service.token(tenant, 'operator');
    const body = {
      name: 'Local TLS',
      scan_type: 'ssl',
      target: `localhost:${server.port}`,
      scope: { extra_roots: rootPem, http: true },
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
    };
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body });
    expect(created.status).toBe(201);

    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();

    const schedule = (await service.call(`/api/scans/schedules/${created.body.id}/`, { token })).body;
    const scan = (await service.call(`/api/scans/${schedule.last_scan_id}/`, { token })).body;
    const findings = (await service.call(`/api/findings/?scan_id=${scan.id}`, { token })).body.items;
    expect(scan.errors).toEqual([]);
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'ssl', trigger: 'cron' });
    expect(schedule.last_run_status).toBe('success');
    // s_server -www answers HTTP without Strict-Transport-Security.
    expect(findings.map((finding: { rule_id: string }) => finding.rule_id)).toContain('tls.hsts.missing');
    expect(scan.checks.map((check: { id: string }) => check.id)).toEqual(tlsCatalogue.map((rule) => rule.rule_id));
    const status = Object.fromEntries(scan.checks.map((check: { id: string; status: string }) => [check.id, check.status]));
    expect(status['tls.cert.untrusted']).toBe('pass');
    expect(status['tls.cert.hostname_mismatch']).toBe('pass');
    expect(status['tls.hsts.missing']).toBe('fail');
    expect(status['tls.protocol.sslv3']).toBe('pass');
    expect(status['tls.starttls.unavailable']).toBe('skipped');
    expectPassesSayWhy(scan.checks);

    // The scan's log names no file of this server's temporary folder (the engine's scope file was
    // logged as a command line before), and says what was asked in the scope's words.
    const log = await service.call(`/api/scans/${scan.id}/log/`, { token });
    expect(log.status).toBe(200);
    const text = JSON.stringify(log.body.items);
    expect(log.body.items.length).toBeGreaterThan(2);
    expect(text).not.toContain(tmpdir());
    expect(text).not.toMatch(/\/tmp\/|--scope-json|--timeout/);
    const started = log.body.items.find((line: { message: string }) => line.message === 'tlsscan started');
    expect(started.fields).toMatchObject({ target: `localhost:${server.port}`, options: ['extra_roots', 'http'] });
  });
});
