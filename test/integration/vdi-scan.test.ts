import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { catalogue as vdiCatalogue } from '../../layers/vdiscan/src/index.ts';
import { startXrdp, startXvnc, type Running } from '../../layers/vdiscan/test/helpers/desktops.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { fireAndRead, freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const MINUTE = 60_000;

/**
 * DESIGN §11/§21 end to end: a scheduled `vdi` scan fires in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), the built vdiscan binary reads a Debian xrdp (standard
 * security, LOW encryption) and an Xvnc offering None through the engine runner, and the issues
 * open; the VNC server is restarted on the same port with VncAuth, the next fire resolves
 * `vdi.vnc.no_auth` and opens `vdi.vnc.weak_auth_only`, while the RDP issues stay open.
 */
describe('a scheduled vdi scan through the local runtime', () => {
  let service: TestService;
  let xrdp: Running;
  let vnc: Running;
  let dist: string;

  beforeAll(async () => {
    [xrdp, vnc] = await Promise.all([startXrdp('rdp', 'low'), startXvnc('None')]);
    dist = await mkdtemp(join(tmpdir(), 'vdi-e2e-'));
    await buildEngineOf('vdiscan', join(dist, 'bin', 'vdiscan'));
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['vdi', runners.get('vdi')!]]) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await xrdp?.stop();
    await vnc?.stop();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  it('opens the RDP and VNC issues, and resolves no_auth once VNC asks for a password', async () => {
    const tenant = freshTenant('vdi');
    const token = await service.token(tenant, 'operator');
    const body = {
      name: 'Desktops',
      scan_type: 'vdi',
      target: '127.0.0.1',
      scope: { ports: [xrdp.port, vnc.port], rdp_tls: false },
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
    };
    const types = (await service.call('/api/scan-types/', { token })).body.items;
    const vdi = types.find((item: { value: string }) => item.value === 'vdi');
    expect(vdi).toMatchObject({ runner_available: true, engine: { name: 'vdiscan', status: 'beta', doc: 'docs/vdiscan.md' } });
    expect(Object.keys(vdi.engine.scope_schema.properties)).toEqual(['ports', 'rdp_tls']);
    const invalid = await service.call('/api/scans/schedules/', { method: 'POST', token, body: { ...body, scope: { ports: [0] } } });
    expect(invalid.status).toBe(400);
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body });
    expect(created.status).toBe(201);

    const { schedule: first, scan } = await fireAndRead(service, token, created.body.id, 5 * MINUTE);
    expect(scan.errors).toEqual([]);
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'vdi', trigger: 'cron' });
    expect(scan.checks.map((check: { id: string }) => check.id)).toEqual(vdiCatalogue.map((rule) => rule.rule_id));
    const open = async () =>
      (await service.call('/api/issues/?status=open', { token })).body.items.map((issue: { rule_id: string; subject: string }) => [
        issue.rule_id,
        issue.subject,
      ]);
    const rdp = `127.0.0.1:${xrdp.port}`;
    const desk = `127.0.0.1:${vnc.port}`;
    expect(await open()).toEqual(
      expect.arrayContaining([
        ['vdi.rdp.nla_not_required', rdp],
        ['vdi.rdp.standard_security', rdp],
        ['vdi.rdp.weak_encryption', rdp],
        ['vdi.vnc.no_auth', desk],
        ['vdi.vnc.cleartext', desk],
      ]),
    );

    await vnc.stop();
    vnc = await startXvnc('VncAuth', vnc.port);
    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
    const second = (await service.call(`/api/scans/schedules/${created.body.id}/`, { token })).body;
    expect(second.last_scan_id).not.toBe(first.last_scan_id);
    const resolved = (await service.call('/api/issues/?status=resolved', { token })).body.items.map(
      (issue: { rule_id: string }) => issue.rule_id,
    );
    expect(resolved).toEqual(['vdi.vnc.no_auth']);
    expect(await open()).toEqual(
      expect.arrayContaining([
        ['vdi.vnc.weak_auth_only', desk],
        ['vdi.rdp.nla_not_required', rdp],
      ]),
    );
  }, 120_000);
});
