import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { freePort, start, waitForPort, type Started } from '../../layers/medscan/test/helpers/processes.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// DESIGN §22 in the UI: the Medical tile renders medscan's scope schema (AE titles one per line,
// ports as JSON) and launches the built engine against dcmtk's storescp; the Ask to scan box
// understands a PACS at host:port and sends a medical scan.
describe.skipIf(!available)('medical scans from the UI in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let storescp: Started;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'med-ui-'));
    await mkdir(join(dir, 'store'));
    port = await freePort();
    storescp = start('storescp', ['-od', join(dir, 'store'), String(port)]);
    await waitForPort(port, storescp.child);
    await buildEngineOf('medscan', join(dir, 'dist', 'bin', 'medscan'));
    const runners = makeEngineRunners({ binDir: join(dir, 'dist', 'bin'), allowLoopback: true });
    ({ service, browser, page } = await startSignedIn(new Map([['medical', runners.get('medical')!]]), { allowLoopbackTargets: true }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storescp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string) => (await service.call(path, { token: await service.token('local') })).body;

  it('launches a medical scan from its tile with AE titles and ports, and the scan page shows its failed DICOM checks', async () => {
    await page.goto(url('/'));
    const tile = page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Medical', exact: true }) });
    await tile.getByRole('button', { name: 'Scan a target' }).click();
    await tile.getByLabel('Target').fill(`localhost:${port}`);
    await tile.getByLabel('Called AE titles').fill('PACS1\nPACS2');
    await tile.getByLabel('HL7 MLLP ports').fill('2576');
    await tile.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({
      scan_type: 'medical',
      target: `localhost:${port}`,
      scope: { called_ae: ['PACS1', 'PACS2'], hl7_ports: [2576] },
    });
    await service.runtime.drain();
    await expect.poll(async () => (await api(`/api/scans/${scanId}/`)).status).toBe('succeeded');
    const scan = await api(`/api/scans/${scanId}/`);
    expect(scan.checks.filter((check: { status: string }) => check.status === 'fail').map((check: { id: string }) => check.id)).toContain(
      'med.dicom.any_called_ae',
    );
    await browser.audit('tile-medical');
  });

  it('turns "scan the PACS at host:port" into a medical scan and sends it on Send', async () => {
    await page.goto(url('/'));
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill(`scan the PACS at 127.0.0.1:${port}`);
    await page.getByRole('button', { name: 'Preview' }).click();
    const request = page.getByLabel('Request', { exact: true });
    await request.waitFor();
    const shown = (await request.textContent())!;
    expect(shown.split('\n')[0]).toBe('POST /api/scans/');
    expect(JSON.parse(shown.slice(shown.indexOf('\n')))).toEqual({ scan_type: 'medical', target: `127.0.0.1:${port}` });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({ scan_type: 'medical', target: `127.0.0.1:${port}` });
  });
});
