import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import { scheduleBody, type TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Issue 41 item 5: a session that expires under a half-filled form says so and keeps the input;
// signing in again lets the same form be sent. Row actions say what they did by their row.
describe.skipIf(!available)('an expired session in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(new Map([['email_security', new ScriptedRunner()]])));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('says "Your session expired" over the form, keeps what was typed, and sends it after signing in again', async () => {
    await page.goto(`${service.runtime.url}/settings/scheduled-scans`);
    await page.getByRole('button', { name: 'New schedule' }).click();
    const form = page.getByRole('dialog', { name: 'New schedule' });
    await form.getByLabel('Name').fill('Kept across sign-in');
    await form.getByLabel('Target').fill('kept.example');

    // The session ends under the open form (the cookie is gone, as when it expires).
    await browser.context.clearCookies();
    await form.getByRole('button', { name: 'Create schedule' }).click();

    const expired = page.getByRole('dialog', { name: 'Your session expired' });
    await expired.waitFor();
    await browser.audit('session-expired');
    expect(await form.getByLabel('Name').inputValue()).toBe('Kept across sign-in');
    expect(await form.getByLabel('Target').inputValue()).toBe('kept.example');
    // Escape does not dismiss it: nothing on the page works without a session.
    await page.keyboard.press('Escape');
    expect(await expired.isVisible()).toBe(true);

    await expired.getByLabel('Session token').fill(await service.token('local', 'admin'));
    await expired.getByRole('button', { name: 'Sign in' }).click();
    await expired.waitFor({ state: 'hidden' });
    expect(await form.getByLabel('Name').inputValue()).toBe('Kept across sign-in');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByText('Kept across sign-in was created.').waitFor();
    const names = (await service.call('/api/scans/schedules/', { token: await service.token('local') })).body.items.map(
      (schedule: { name: string }) => schedule.name,
    );
    expect(names).toContain('Kept across sign-in');
  });

  it("shows Run now's notice by its row, in view, with a link to the scan it started", async () => {
    const token = await service.token('local');
    for (let index = 0; index < 30; index += 1) {
      const created = await service.call('/api/scans/schedules/', {
        method: 'POST',
        token,
        body: scheduleBody({ name: `Fleet ${String(index).padStart(3, '0')}`, target: `fleet${index}.example` }),
      });
      expect(created.status).toBe(201);
    }
    await page.goto(`${service.runtime.url}/settings/scheduled-scans?sort=name&dir=asc`);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Fleet 025', exact: true }) });
    await row.getByRole('button', { name: 'Run now' }).click();

    const notice = page.locator('tr.row-notice');
    await notice.getByText('Fleet 025 is running now.').waitFor();
    // The notice row follows the row that was clicked, and is on screen.
    expect(await notice.evaluate((element: any) => element.previousElementSibling?.textContent ?? '')).toContain('Fleet 025');
    expect(
      await notice.evaluate((element: any) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= (globalThis as any).innerHeight;
      }),
    ).toBe(true);
    const link = notice.getByRole('link', { name: 'Open the scan' });
    expect(await link.getAttribute('href')).toMatch(/^\/scans\/scan_/);
    // Nothing at the table's top.
    expect(await page.locator('.notice-slot .notice').count()).toBe(0);
    await browser.audit('scheduled-scans-row-notice');
  });
});
