import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { catalogue as m365Catalogue } from '../../layers/m365scan/src/index.ts';
import { startWorld, type World } from '../../layers/m365scan/test/helpers/world.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { fireAndRead, freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const MINUTE = 60_000;

/**
 * DESIGN §11/§19 end to end: a scheduled `m365` scan fires in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), the real m365scan binary reads NSD and the loopback
 * Microsoft fakes through the engine runner (its M365SCAN_* settings and EXTRA_CA_FILE passed
 * on), and its issues open; desktop SSO is then turned off and the next fire resolves that issue.
 */
describe('a scheduled m365 scan through the local runtime', () => {
  let service: TestService;
  let world: World;
  let dist: string;

  beforeAll(async () => {
    world = await startWorld('127.0.38.3');
    dist = await mkdtemp(join(tmpdir(), 'm365-e2e-'));
    await buildEngineOf('m365scan', join(dist, 'bin', 'm365scan'));
    const env = { PATH: process.env.PATH, ...world.env };
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true, env });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['m365', runners.get('m365')!]]) });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await world?.close();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  it('opens the tenant and desktop SSO issues, and resolves the SSO one once it is turned off', async () => {
    const tenant = freshTenant('m365');
    const token = await service.token(tenant, 'operator');
    const types = (await service.call('/api/scan-types/', { token })).body.items;
    expect(types.find((item: { value: string }) => item.value === 'm365')).toMatchObject({
      runner_available: true,
      engine: { name: 'm365scan', status: 'beta', target_kind: 'domain', doc: 'docs/m365scan.md' },
    });
    const body = {
      name: 'Example tenant',
      scan_type: 'm365',
      target: 'example.com',
      scope: { dkim_selectors: ['selector1', 'selector2'] },
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
    };
    const refused = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: { ...body, scope: { login_url: 'https://x.example/' } },
    });
    expect(refused.status).toBe(400);
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body });
    expect(created.status).toBe(201);

    const { schedule: first, scan } = await fireAndRead(service, token, created.body.id, 5 * MINUTE);
    expect(scan.errors).toEqual([]);
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'm365', trigger: 'cron' });
    expect(scan.checks.map((check: { id: string }) => check.id)).toEqual(m365Catalogue.map((rule) => rule.rule_id));
    const opened = (await service.call('/api/issues/?status=open', { token })).body.items;
    expect(opened.map((issue: { rule_id: string }) => issue.rule_id).sort()).toEqual([
      'm365.mta_sts.missing',
      'm365.seamless_sso.enabled',
      'm365.tenant.detected',
    ]);
    expect(world.fakes.requestsFor('example.com')).toBeLessThanOrEqual(25);

    world.tenants['example.com'].desktopSso = false;
    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
    const second = (await service.call(`/api/scans/schedules/${created.body.id}/`, { token })).body;
    expect(second.last_scan_id).not.toBe(first.last_scan_id);
    const resolved = (await service.call('/api/issues/?status=resolved', { token })).body.items.map(
      (issue: { rule_id: string }) => issue.rule_id,
    );
    expect(resolved).toEqual(['m365.seamless_sso.enabled']);
    const stillOpen = (await service.call('/api/issues/?status=open', { token })).body.items;
    const detected = stillOpen.find((issue: { rule_id: string }) => issue.rule_id === 'm365.tenant.detected');
    expect(detected).toMatchObject({ severity: 'info', subject: 'example.com' });
  }, 90_000);
});
