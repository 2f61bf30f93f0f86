import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOsvServer, type OsvServer } from '../../layers/sbomscan/test/osv-server.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { cachedEngineBuild } from '../helpers/engine-build-cache.ts';
import { gitAvailable, startGitServer, type GitServer, type TestRepository } from '../helpers/git-http-server.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const MINUTE = 60_000;

/** A package-lock.json v3 of these direct dependencies (name → version), as npm writes one. */
function lockfile(dependencies: Record<string, string>): Record<string, string> {
  const packages: Record<string, unknown> = { '': { name: 'app', version: '1.0.0', dependencies } };
  for (const [name, version] of Object.entries(dependencies))
    packages[`node_modules/${name}`] = {
      version,
      resolved: `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`,
      integrity: 'sha512-AAAA',
    };
  return {
    'package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies }),
    'package-lock.json': JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }),
  };
}

/**
 * DESIGN §15 and §18 end to end through the local runtime (as under `ALLOW_LOOPBACK_TARGETS=true
 * npm start`): two scheduled sbom scans of a repository on git http-backend, with a dependency
 * added between them, the real sbomscan executable and a loopback OSV service. The second scan's
 * changes name the added purl, its advisory opens a new issue, and GET /sbom/ answers the document.
 */
describe.skipIf(!gitAvailable())('scheduled sbom scans through the local runtime', () => {
  let service: TestService;
  let git: GitServer;
  let osv: OsvServer;
  let repo: TestRepository;

  beforeAll(async () => {
    [git, osv] = await Promise.all([startGitServer(), startOsvServer()]);
    repo = await git.repository('acme/app');
    const bin = await cachedEngineBuild('sbomscan');
    const runners = makeEngineRunners({
      binDir: dirname(bin),
      env: { PATH: process.env.PATH, SBOMSCAN_OSV_URL: osv.url },
      allowLoopback: true,
    });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['sbom', runners.get('sbom')!]]) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await Promise.all([git?.close(), osv?.close()]);
  });

  it('stores each SBOM, lists the component added since the last scan, and opens its advisory as a new issue', async () => {
    const tenant = freshTenant('sbom');
    const token = await service.token(tenant, 'operator');
    const viewer = await service.token(tenant, 'viewer');
    await repo.commit('left-pad', lockfile({ 'left-pad': '1.3.0' }));
    const body = {
      name: 'App SBOM',
      scan_type: 'sbom',
      target: `${git.origin}/acme/app.git`,
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
    };
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body });
    expect(created.status).toBe(201);

    // act: the first fire, then lodash 4.17.20 (advisories below 4.17.21) added, then the second fire
    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
    const firstId = (await service.call(`/api/scans/schedules/${created.body.id}/`, { token })).body.last_scan_id;
    await repo.commit('add lodash', lockfile({ 'left-pad': '1.3.0', lodash: '4.17.20' }));
    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
    const secondId = (await service.call(`/api/scans/schedules/${created.body.id}/`, { token })).body.last_scan_id;

    // assert: the first scan is the first inventory: nothing "added"
    expect(secondId).not.toBe(firstId);
    const first = (await service.call(`/api/scans/${firstId}/`, { token: viewer })).body;
    expect(first.errors).toEqual([]);
    expect(first.changes.components).toEqual({
      count: 1,
      since_scan_id: null,
      added_count: 0,
      removed_count: 0,
      added: [],
      removed: [],
      truncated: false,
    });
    expect(first.outputs).toMatchObject([{ name: 'sbom', purpose: 'sbom', content_type: 'application/vnd.cyclonedx+json' }]);

    // the second lists lodash as added against the first
    const second = (await service.call(`/api/scans/${secondId}/`, { token: viewer })).body;
    expect(second.errors).toEqual([]);
    expect(second.changes.components).toEqual({
      count: 2,
      since_scan_id: firstId,
      added_count: 1,
      removed_count: 0,
      added: ['pkg:npm/lodash@4.17.20'],
      removed: [],
      truncated: false,
    });
    expect(second.changes.new).toBeGreaterThan(0);
    const changed = (await service.call(`/api/scans/${secondId}/changes/`, { token: viewer })).body;
    const opened = JSON.stringify(changed);
    expect(opened).toContain('pkg:npm/lodash@4.17.20');
    expect(opened).toContain('GHSA-35jh-r3h4-6jhm');

    // the document, to a viewer of the tenant
    const sbom = await service.call(`/api/scans/${secondId}/sbom/`, { token: viewer });
    expect(sbom.status).toBe(200);
    expect(sbom.headers.get('content-type')).toBe('application/vnd.cyclonedx+json');
    expect(sbom.body).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    expect(sbom.body.components.map((component: { purl: string }) => component.purl).sort()).toEqual([
      'pkg:npm/left-pad@1.3.0',
      'pkg:npm/lodash@4.17.20',
    ]);
    const artifact = (await service.call(`/api/artifacts/${second.outputs[0].artifact_id}/`, { token: viewer })).body;
    expect(artifact).toMatchObject({
      purpose: 'sbom',
      status: 'ready',
      scan_id: secondId,
      target: body.target,
      size: second.outputs[0].size,
    });

    // not to another tenant; and a scan without one is 404
    const stranger = await service.token(freshTenant('other'), 'admin');
    expect((await service.call(`/api/scans/${secondId}/sbom/`, { token: stranger })).status).toBe(404);
  }, 60_000);

  it('answers 404 for a scan that has no SBOM', async () => {
    const tenant = freshTenant('nosbom');
    const token = await service.token(tenant, 'operator');
    // A repository that cannot be cloned: the scan fails and keeps no document.
    const created = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'sbom', target: `${git.origin}/acme/missing.git` },
    });
    expect(created.status).toBe(202);
    await service.runtime.drain();
    const scan = (await service.call(`/api/scans/${created.body.id}/`, { token })).body;
    expect(scan.status).toBe('failed');
    expect(scan.outputs).toBeUndefined();
    const answer = await service.call(`/api/scans/${created.body.id}/sbom/`, { token });
    expect(answer.status).toBe(404);
  }, 60_000);
});
