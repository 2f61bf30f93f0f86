import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// The UI checks a target as the API will: under ALLOW_LOOPBACK_TARGETS=true the API accepts
// 127.0.0.1, so the chat prompt and the schedule form must not refuse it (they used the default
// policy whatever the deployment's, GET /api/scan-types/ `target_policy`).
describe.skipIf(!available)('the deployment target policy in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(new Map([['ssl', new ScriptedRunner()]]), { allowLoopbackTargets: true }));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;

  it('lets the chat prompt and the schedule form name a loopback target where the API accepts one', async () => {
    await page.goto(url('/'));
    const ask = page.getByRole('textbox', { name: 'Ask to scan' });
    await ask.fill('schedule an SSL scan of 127.0.0.1:8443 daily');
    await page.getByRole('button', { name: 'Preview' }).click();
    const request = page.getByLabel('Request', { exact: true });
    await request.waitFor();
    const shown = (await request.textContent())!;
    expect(JSON.parse(shown.slice(shown.indexOf('\n')))).toMatchObject({ scan_type: 'ssl', target: '127.0.0.1:8443' });

    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Local TLS');
    await dialog.getByLabel('Target').fill('127.0.0.1:8443');
    await dialog.getByLabel('Cadence').selectOption('daily');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    await dialog.waitFor({ state: 'detached' });
    const listed = await service.call('/api/scans/schedules/', { token: await service.token('local') });
    expect(listed.body.items.map((schedule: { target: string }) => schedule.target)).toEqual(['127.0.0.1:8443']);
  });

  it('still refuses what the deployment does not admit (a private network)', async () => {
    await page.goto(url('/'));
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('schedule an SSL scan of 10.0.0.1:443 daily');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Not understood.').waitFor();
    expect(await page.getByLabel('Request', { exact: true }).count()).toBe(0);
  });
});
