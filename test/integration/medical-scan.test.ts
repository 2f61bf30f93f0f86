import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { catalogue as medCatalogue } from '../../layers/medscan/src/index.ts';
import { freePort, start, waitForPort, type Started } from '../../layers/medscan/test/helpers/processes.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { fireAndRead, freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const MINUTE = 60_000;

/**
 * DESIGN §11/§22 end to end: a scheduled `medical` scan fires in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), the built medscan probes dcmtk's storescp (which
 * accepts any AE) through the engine runner, and the DICOM issues open on host:port.
 */
describe('a scheduled medical scan through the local runtime', () => {
  let service: TestService;
  let storescp: Started;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'med-e2e-'));
    await mkdir(join(dir, 'store'));
    port = await freePort();
    storescp = start('storescp', ['-od', join(dir, 'store'), String(port)]);
    await waitForPort(port, storescp.child);
    await buildEngineOf('medscan', join(dir, 'dist', 'bin', 'medscan'));
    const runners = makeEngineRunners({ binDir: join(dir, 'dist', 'bin'), allowLoopback: true });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['medical', runners.get('medical')!]]) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await storescp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a CIDR target and an unknown scope field at create time', async () => {
    const token = await service.token(freshTenant('med-refuse'), 'operator');
    const body = { name: 'PACS', scan_type: 'medical', cadence: 'custom', cron_expression: '*/5 * * * *' };
    const cidr = await service.call('/api/scans/schedules/', { method: 'POST', token, body: { ...body, target: '127.0.0.0/24' } });
    const unknown = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: { ...body, target: `localhost:${port}`, scope: { guess_ae: true } },
    });
    expect(cidr.status).toBe(400);
    expect(unknown.status).toBe(400);
  });

  it('fires on schedule, runs every check and opens the DICOM issues of the port', async () => {
    const token = await service.token(freshTenant('med'), 'operator');
    const created = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: {
        name: 'PACS',
        scan_type: 'medical',
        target: `localhost:${port}`,
        scope: { connect_timeout_ms: 1000 },
        cadence: 'custom',
        cron_expression: '*/5 * * * *',
      },
    });
    expect(created.status).toBe(201);

    const { scan } = await fireAndRead(service, token, created.body.id, 5 * MINUTE);
    expect(scan).toMatchObject({ status: 'succeeded', scan_type: 'medical', trigger: 'cron', errors: [] });
    expect(scan.checks.map((check: { id: string }) => check.id)).toEqual(medCatalogue.map((rule) => rule.rule_id));
    const issues = (await service.call('/api/issues/?limit=100', { token })).body.items as { rule_id: string; subject: string }[];
    expect(issues.map((issue) => issue.rule_id).sort()).toEqual([
      'med.dicom.any_called_ae',
      'med.dicom.any_calling_ae',
      'med.dicom.cleartext',
      'med.dicom.store_open',
    ]);
    expect(issues.every((issue) => issue.subject === `localhost:${port}`)).toBe(true);
  });
});
