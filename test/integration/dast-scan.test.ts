import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { catalogue as webCatalogue } from '../../layers/webscan/src/index.ts';
import { freePort, makeServerDir, startNginx, writeTree, type RunningServer } from '../../layers/webscan/test/helpers/servers.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { fireAndRead, freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const MINUTE = 60_000;

const SITE_BAD = `
  server {
    listen 127.0.0.1:{{PORT}};
    root {{DIR}}/www;
    server_tokens on;
    location /files/ { autoindex on; }
  }`;
const SITE_FIXED = `
  server {
    listen 127.0.0.1:{{PORT}};
    root {{DIR}}/www;
    server_tokens off;
    add_header Content-Security-Policy "default-src 'self'; frame-ancestors 'none'" always;
    add_header X-Content-Type-Options nosniff always;
    add_header Referrer-Policy no-referrer always;
    location ~ /\\. { return 404; }
  }`;

/** The Server header of GET / (nginx's workers switch configuration some moments after a reload). */
function serverHeader(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      resolve(String(res.headers.server));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * DESIGN §11/§17 end to end: a scheduled `dast` scan fires in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), the real webscan binary scans a Debian nginx through
 * the engine runner, its issues open; the server is fixed and reloaded, the next fire's checks
 * pass and the issues resolve.
 */
describe('a scheduled dast scan through the local runtime', () => {
  let service: TestService;
  let nginx: RunningServer;
  let port: number;
  let dist: string;

  beforeAll(async () => {
    const dir = await makeServerDir('webscan-e2e-');
    port = await freePort();
    await writeTree(join(dir, 'www'), {
      'index.html': '<!doctype html><html><body><a href="/files/a.txt">a</a></body></html>',
      'files/a.txt': 'a\n',
    });
    execFileSync('git', ['init', '-q', join(dir, 'www')]);
    execFileSync('chmod', ['-R', 'a+rX', dir]);
    await writeFile(join(dir, 'site.conf'), SITE_BAD.replace('{{PORT}}', String(port)).replaceAll('{{DIR}}', dir));
    nginx = await startNginx(dir, `include ${dir}/site.conf;`, [port]);
    dist = await mkdtemp(join(tmpdir(), 'dast-e2e-'));
    await buildEngineOf('webscan', join(dist, 'bin', 'webscan'));
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['dast', runners.get('dast')!]]) });
  });
  afterAll(async () => {
    await service?.stop();
    await nginx?.stop();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  it('opens issues for what the server shows and resolves them once it is fixed', async () => {
    const tenant = freshTenant('dast');
    const token = await service.token(tenant, 'operator');
    const body = {
      name: 'Local site',
      scan_type: 'dast',
      target: `http://127.0.0.1:${port}/`,
      scope: { rate: 20, max_pages: 20 },
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
    };
    const types = (await service.call('/api/scan-types/', { token })).body.items;
    const dast = types.find((item: { value: string }) => item.value === 'dast');
    expect(dast).toMatchObject({
      runner_available: true,
      engine: { name: 'webscan', status: 'beta', target_kind: 'http_url', doc: 'docs/webscan.md' },
    });
    expect(Object.keys(dast.engine.scope_schema.properties)).toEqual(
      expect.arrayContaining(['max_pages', 'rate', 'ignore', 'active', 'credential']),
    );
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body });
    expect(created.status).toBe(201);
    const invalid = await service.call('/api/scans/schedules/', { method: 'POST', token, body: { ...body, scope: { rate: 50 } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details[0].field).toBe('scope.rate');

    const { schedule: first, scan } = await fireAndRead(service, token, created.body.id, 5 * MINUTE);
    expect(scan.errors).toEqual([]);
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'dast', trigger: 'cron' });
    expect(scan.checks.map((check: { id: string }) => check.id)).toEqual(webCatalogue.map((rule) => rule.rule_id));
    const opened = (await service.call('/api/issues/?status=open', { token })).body.items.map(
      (issue: { rule_id: string }) => issue.rule_id,
    );
    const fixedLater = ['web.disclosure.version_header', 'web.exposure.directory_listing', 'web.exposure.vcs', 'web.headers.csp_missing'];
    expect(opened).toEqual(expect.arrayContaining(fixedLater));

    await writeFile(join(nginx.dir, 'site.conf'), SITE_FIXED.replace('{{PORT}}', String(port)).replaceAll('{{DIR}}', nginx.dir));
    await nginx.reload!();
    while ((await serverHeader(port)) !== 'nginx') await new Promise((resolve) => setImmediate(resolve));

    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
    const second = (await service.call(`/api/scans/schedules/${created.body.id}/`, { token })).body;
    expect(second.last_scan_id).not.toBe(first.last_scan_id);
    const stillOpen = (await service.call('/api/issues/?status=open', { token })).body.items.map(
      (issue: { rule_id: string }) => issue.rule_id,
    );
    const resolved = (await service.call('/api/issues/?status=resolved', { token })).body.items.map(
      (issue: { rule_id: string }) => issue.rule_id,
    );
    expect(resolved).toEqual(expect.arrayContaining(fixedLater));
    for (const rule of fixedLater) expect(stillOpen).not.toContain(rule);
    // Still wrong after the fix, so still open: plain HTTP without a redirect.
    expect(stillOpen).toContain('web.transport.http_only');
  }, 90_000);
});
