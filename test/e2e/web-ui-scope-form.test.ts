import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, focusedName, startSignedIn, type Browser } from './browser.ts';

// Issue 41, item 1: the options of every scan type come from its engine's scope schema
// (GET /api/scan-types/), on the launcher tiles, the schedule form and the edit dialog; the
// browser refuses with the API's words, and what is sent is what the API stores.
describe.skipIf(!available)('scan options from the scope schema in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(
      new Map([
        ['vapt', new ScriptedRunner()],
        ['ssl', new ScriptedRunner()],
      ]),
      { allowLoopbackTargets: true },
    ));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string) => (await service.call(path, { token: await service.token('local') })).body;
  const tile = (label: string) =>
    page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: label, exact: true }) });

  it('sets VAPT ports and rate on its tile, refuses an out-of-range rate before sending, and the scan keeps the options', async () => {
    await page.goto(url('/'));
    const vapt = tile('VAPT');
    await vapt.getByRole('button', { name: 'Scan a target' }).click();
    await vapt.getByLabel('Target').fill('127.0.0.1');
    await vapt.getByLabel('Ports').fill('22,6390');
    await vapt.getByLabel('Rate').fill('99999');
    expect(await vapt.getByText('From 1 to 5000. Default 200.').count()).toBe(1);
    await vapt.getByRole('button', { name: 'Start scan' }).click();
    const error = vapt.locator('#tile-vapt-scope-rate-error');
    expect(await error.textContent()).toBe('Rate must be at most 5000.');
    expect(await focusedName(page)).toBe('tile-vapt-scope-rate');
    expect((await api('/api/scans/')).items).toEqual([]);
    await browser.audit('tile-vapt-options');

    await vapt.getByLabel('Rate').fill('50');
    await error.waitFor({ state: 'detached' });
    await vapt.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await api(`/api/scans/${scanId}/`)).toMatchObject({
      scan_type: 'vapt',
      target: '127.0.0.1',
      scope: { ports: '22,6390', rate: 50 },
    });
    expect(Object.keys((await api(`/api/scans/${scanId}/`)).scope).sort()).toEqual(['ports', 'rate']);
    // The scan page says which options it ran with.
    await page.locator('.facts').getByText('Ports: 22,6390 · Rate: 50').waitFor();
  });

  it('sends an SSL/TLS enum and a Default/Yes/No choice as set, and leaves the rest to the scanner', async () => {
    await page.goto(url('/'));
    const ssl = tile('SSL/TLS');
    await ssl.getByRole('button', { name: 'Scan a target' }).click();
    await ssl.getByLabel('Target').fill('127.0.0.1:8443');
    await ssl.getByLabel('STARTTLS').selectOption('smtp');
    await ssl.getByLabel('HTTP').selectOption('false');
    await ssl.getByLabel('SNI').fill('bad host!');
    await ssl.getByRole('button', { name: 'Start scan' }).click();
    expect(await ssl.locator('#tile-ssl-scope-sni-error').textContent()).toBe('SNI must be a host name.');
    await ssl.getByLabel('SNI').fill('');
    await ssl.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await api(`/api/scans/${scanId}/`)).scope).toEqual({ starttls: 'smtp', http: false });
  });

  it('creates a schedule with options and edits them in the dialog, which shows the saved ones', async () => {
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Redis and sshd');
    await dialog.getByLabel('Scan type').selectOption('vapt');
    await dialog.getByLabel('Target', { exact: true }).fill('127.0.0.1');
    await dialog.getByLabel('Ports').fill('22,2222,6390');
    await dialog.getByLabel('Connect timeout (ms)').fill('50');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    expect(await dialog.locator('#f-scope-connect_timeout_ms-error').textContent()).toBe('Connect timeout (ms) must be at least 100.');
    expect(await focusedName(page)).toBe('f-scope-connect_timeout_ms');
    await browser.audit('schedule-form-vapt-options');
    await dialog.getByLabel('Connect timeout (ms)').fill('');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    await dialog.waitFor({ state: 'detached' });
    const [created] = (await api('/api/scans/schedules/')).items;
    expect(created.scope).toEqual({ ports: '22,2222,6390' });

    await page.getByRole('button', { name: /^Edit/ }).first().click();
    await dialog.getByText('Saved options: Ports: 22,2222,6390').waitFor();
    expect(await dialog.getByLabel('Ports').inputValue()).toBe('22,2222,6390');
    await dialog.getByLabel('Rate').fill('25');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api(`/api/scans/schedules/${created.id}/`)).scope).toEqual({ ports: '22,2222,6390', rate: 25 });
    // The row says the options in a line: two schedules of one target no longer look alike.
    const row = page.getByRole('row').filter({ hasText: 'Redis and sshd' });
    await row.getByText('Ports: 22,2222,6390 · Rate: 25').waitFor();
    await browser.audit('schedule-row-options');
    await row.getByRole('link', { name: /Redis and sshd/ }).click();
    await page.getByRole('heading', { name: 'Run history of Redis and sshd' }).waitFor();
    await page.locator('.facts').getByText('Ports: 22,2222,6390 · Rate: 25').waitFor();
  });

  it('reads options in words in Ask to scan and sends them', async () => {
    await page.goto(url('/'));
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('scan ports 22,6390 on 127.0.0.1 rate 40');
    await page.getByRole('button', { name: 'Preview' }).click();
    const shown = (await page.getByLabel('Request', { exact: true }).textContent())!;
    expect(JSON.parse(shown.slice(shown.indexOf('\n')))).toEqual({
      scan_type: 'vapt',
      target: '127.0.0.1',
      scope: { ports: '22,6390', rate: 40 },
    });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await api(`/api/scans/${scanId}/`)).scope).toEqual({ ports: '22,6390', rate: 40 });
  });
});
