import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { startWorld, type World } from '../../layers/m365scan/test/helpers/world.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Issue 38: the M365 tile is runnable once m365scan is in layers/manifests.ts, its options come
// from the scope schema (no endpoint among them), and both the tile and Ask to scan launch a real
// m365scan scan (NSD and the loopback Microsoft fakes behind it).
describe.skipIf(!available)('the M365 scan in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let world: World;
  let dist: string;

  beforeAll(async () => {
    world = await startWorld('127.0.38.6');
    dist = await mkdtemp(join(tmpdir(), 'm365-ui-'));
    await buildEngineOf('m365scan', join(dist, 'bin', 'm365scan'));
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true, env: { PATH: process.env.PATH, ...world.env } });
    ({ service, browser, page } = await startSignedIn(new Map([['m365', runners.get('m365')!]]), { allowLoopbackTargets: true }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await world?.close();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string) => (await service.call(path, { token: await service.token('local') })).body;
  const tile = () =>
    page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'M365', exact: true }) });

  it('launches from its tile with the options of its scope schema', async () => {
    await page.goto(url('/'));
    const m365 = tile();
    expect(await m365.getByText('No runner in this deployment').count()).toBe(0);
    await m365.getByRole('button', { name: 'Scan a target' }).click();
    await m365.getByLabel('Target').fill('example.com');
    await m365.getByLabel('ADFS').selectOption('false');
    await m365.getByLabel('DKIM selectors').fill('selector1\nselector2');
    expect(await m365.getByLabel(/login|url/i).count()).toBe(0);
    await browser.audit('tile-m365-options');
    await m365.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({
      scan_type: 'm365',
      target: 'example.com',
      scope: { adfs: false, dkim_selectors: ['selector1', 'selector2'] },
    });
    await service.runtime.drain();
    const scan = await api(`/api/scans/${scanId}/`);
    expect(scan).toMatchObject({ status: 'succeeded', errors: [] });
    expect(scan.checks.find((check: { id: string }) => check.id === 'm365.adfs.legacy_endpoint')).toMatchObject({ status: 'skipped' });
  });

  it('launches from Ask to scan', async () => {
    await page.goto(url('/'));
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('check m365 for example.com');
    await page.getByRole('button', { name: 'Preview' }).click();
    const shown = (await page.getByLabel('Request', { exact: true }).textContent())!;
    expect(JSON.parse(shown.slice(shown.indexOf('\n')))).toMatchObject({ scan_type: 'm365', target: 'example.com' });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({ scan_type: 'm365', target: 'example.com' });
  });
});
