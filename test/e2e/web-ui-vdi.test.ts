import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Issue 39: the VDI tile and Ask to scan launch a vdi scan with vdiscan's options, rendered from
// its scope schema (GET /api/scan-types/) like every engine's; the target is host[:port].
describe.skipIf(!available)('VDI scans from the launcher tile and from Ask to scan, in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(new Map([['vdi', new ScriptedRunner()]]), { allowLoopbackTargets: true }));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string) => (await service.call(path, { token: await service.token('local') })).body;

  it('launches from the VDI tile with ports and the RDP TLS choice, and refuses a reversed range with the API’s words', async () => {
    await page.goto(url('/'));
    const vdi = page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'VDI', exact: true }) });
    await vdi.getByRole('button', { name: 'Scan a target' }).click();
    await vdi.getByLabel('Target').fill('127.0.0.1');
    await vdi.getByLabel('Ports').fill('5903-5900');
    await vdi.getByRole('button', { name: 'Start scan' }).click();
    await vdi.getByText('the range 5903-5900 runs backwards').waitFor();
    expect((await api('/api/scans/')).items).toEqual([]);
    await browser.audit('tile-vdi-options');

    await vdi.getByLabel('Ports').fill('3389,5900-5901');
    await vdi.getByLabel('RDP TLS').selectOption('false');
    await vdi.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({
      scan_type: 'vdi',
      target: '127.0.0.1',
      scope: { ports: '3389,5900-5901', rdp_tls: false },
    });
  });

  it('launches from Ask to scan with a host:port target', async () => {
    await page.goto(url('/'));
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('vdi scan of 127.0.0.1:3389');
    await page.getByRole('button', { name: 'Preview' }).click();
    const shown = (await page.getByLabel('Request', { exact: true }).textContent())!;
    expect(JSON.parse(shown.slice(shown.indexOf('\n')))).toEqual({ scan_type: 'vdi', target: '127.0.0.1:3389' });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({ scan_type: 'vdi', target: '127.0.0.1:3389' });
  });
});
