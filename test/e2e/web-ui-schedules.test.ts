import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import { scheduleBody, type TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, VIEWPORTS, type Browser, focusedName, tabToControl } from './browser.ts';

// The schedule form, the chat prompt and the Scheduled Scans table with real data (issue 25,
// items 3, 4, 6 and 7), and the main flows with the keyboard only. This deployment has runners for
// email_security and ssl: everything offered must follow GET /api/scan-types/, not a fixed list.
describe.skipIf(!available)('schedules, forms and the chat prompt in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const runners = new Map([
    ['email_security' as const, new ScriptedRunner()],
    ['ssl' as const, new ScriptedRunner()],
  ]);

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(runners));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string, options: Parameters<TestService['call']>[1] = {}) =>
    service.call(path, { token: await service.token('local'), ...options });
  const focused = () => focusedName(page);
  const tabTo = (name: string | RegExp, options: { back?: boolean; max?: number } = {}) => tabToControl(page, name, options);

  it('offers only the scan types with a runner, in the form and in the chat prompt', async () => {
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Only the scan types this deployment can run.').waitFor();
    expect(await dialog.getByLabel('Scan type').locator('option').allTextContents()).toEqual(['Email Security', 'SSL/TLS']);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(url('/'));
    const ask = page.getByRole('textbox', { name: 'Ask to scan' });
    await ask.fill('schedule a DAST scan of https://app.example.com with cron 30 2 * * 1');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('DAST scans have no runner in this deployment. It can run: Email Security, SSL/TLS.').waitFor();
    const examples = await page.locator('.examples li').allTextContents();
    expect(examples).toContain('schedule an SSL scan of www.example.com:443 daily');
    expect(examples.filter((example) => /DAST|secrets|vulnerabilities/.test(example))).toEqual([]);
    expect(await page.getByLabel('Request', { exact: true }).count()).toBe(0);
    await audit('ask-to-scan-no-runner');

    await ask.fill('schedule an SSL scan of www.example.com:443 daily');
    await page.getByRole('button', { name: 'Preview' }).click();
    expect((await page.getByLabel('Request', { exact: true }).textContent())!.split('\n')[0]).toBe('POST /api/scans/schedules/');
  });

  it('speaks plainly, clears each error as its field becomes valid, and puts focus on the first invalid field', async () => {
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').waitFor();
    await dialog.getByRole('button', { name: 'Create schedule' }).click();

    await dialog.locator('#name-error').waitFor();
    expect(await dialog.locator('.field-error').allTextContents()).toEqual(['Name is required.', 'Target is required.']);
    expect(await focused()).toBe('f-name');
    expect(await dialog.textContent()).not.toMatch(/Too small|expected string|>=1/);

    await page.keyboard.type('Plain words');
    await dialog.locator('#name-error').waitFor({ state: 'detached' });
    await dialog.getByLabel('Target').fill('not a domain');
    expect(await dialog.locator('#target-error').textContent()).toBe('Target must be a domain name such as example.com.');
    await dialog.getByLabel('Target').fill('example.com');
    await dialog.locator('#target-error').waitFor({ state: 'detached' });

    // The schema's own rule, refused before sending in the API's words; it goes when the field changes.
    await dialog.getByLabel('DKIM selectors').fill('s1, bad!');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    const dkim = dialog.locator('#f-scope-dkim_selectors-error');
    await dkim.waitFor();
    expect(await dkim.textContent()).toBe('DKIM selectors include "bad!", which is not a selector (letters, digits and ._- only).');
    expect(await focused()).toBe('f-scope-dkim_selectors');
    await audit('schedule-form-errors');
    await page.keyboard.press('Backspace');
    await dkim.waitFor({ state: 'detached' });
    await dialog.getByLabel('DKIM selectors').fill('s1');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByText('Plain words was created.').waitFor();
  });

  it('puts the cursor in the Target field of a tile it opens', async () => {
    await page.goto(url('/'));
    const tile = page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'SSL/TLS' }) });
    await tile.getByRole('button', { name: 'Scan a target' }).click();
    expect(await focused()).toBe('tile-ssl-target');
  });

  it('warns before the chat creates an exact duplicate', async () => {
    await api('/api/scans/schedules/', {
      method: 'POST',
      body: scheduleBody({ name: 'Nightly mail', target: 'dupe.example', cadence: 'daily' }),
    });
    await page.goto(url('/'));
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('scan mail of dupe.example daily');
    await page.getByRole('button', { name: 'Preview' }).click();
    const warning = page.locator('#ask-duplicate');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('“Nightly mail” already runs this scan of dupe.example on the same cadence');
    expect(await page.getByRole('button', { name: 'Send' }).getAttribute('aria-describedby')).toBe('ask-duplicate');
    await audit('ask-to-scan-duplicate');

    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('scan mail of dupe.example weekly');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByLabel('Request', { exact: true }).waitFor();
    expect(await warning.count()).toBe(0);
  });

  describe('with 300 schedules', () => {
    beforeAll(async () => {
      const bodies = Array.from({ length: 300 }, (_, i) =>
        scheduleBody({
          name:
            i === 7
              ? 'Quarterly review of the entire European mail estate including every subsidiary'
              : `Fleet ${String(i).padStart(3, '0')}`,
          description: i % 5 === 0 ? 'A description long enough to have wrapped the row under the name before' : '',
          scan_type: i % 4 === 0 ? 'ssl' : 'email_security',
          target: i === 42 ? 'bücher.example' : i % 4 === 0 ? `host${i}.example:443` : `fleet${i}.example`,
          cadence: 'custom',
          cron_expression: `${i % 60} ${i % 24} * * 1-5`,
          timezone: 'America/Argentina/ComodRivadavia',
          enabled: i % 3 !== 0,
        }),
      );
      for (let i = 0; i < bodies.length; i += 25)
        await Promise.all(bodies.slice(i, i + 25).map((body) => api('/api/scans/schedules/', { method: 'POST', body })));
    }, 400_000);

    it('searches by name or target in Unicode or punycode, filters, sorts, and shows IDNs in Unicode', async () => {
      await page.goto(url('/settings/scheduled-scans'));
      await page.getByText(/^30[0-9] schedules\.$/).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(100);

      const search = page.getByRole('searchbox', { name: 'Search schedules' });
      await search.fill('bücher');
      await page.getByText(/^1 of \d+ schedules match\.$/).waitFor();
      const cell = page.locator('tbody tr td.cell-target span');
      expect(await cell.textContent()).toBe('bücher.example');
      expect(await cell.getAttribute('title')).toBe('xn--bcher-kva.example (as stored and scanned)');
      await search.fill('xn--bcher');
      await page.getByText(/^1 of \d+ schedules match\.$/).waitFor();
      expect(new URL(page.url()).searchParams.get('q')).toBe('xn--bcher');

      await search.fill('');
      await page.getByRole('combobox', { name: 'Scan type' }).selectOption('ssl');
      await page.getByRole('combobox', { name: 'Enabled' }).selectOption('no');
      await page.getByText(/^25 of \d+ schedules match\.$/).waitFor();
      const types = await page.locator('tbody td.cell-type').allTextContents();
      expect(new Set(types)).toEqual(new Set(['SSL/TLS']));
      await page.getByRole('combobox', { name: 'Last run' }).selectOption('failed');
      await page.getByText('No schedule matches').waitFor();
      await page.getByRole('button', { name: 'Clear search and filters' }).click();
      await page.getByText(/^30[0-9] schedules\.$/).waitFor();

      await page.getByRole('button', { name: 'Name' }).click();
      expect(await page.getByRole('columnheader', { name: 'Name' }).getAttribute('aria-sort')).toBe('descending');
      const names = await page.locator('tbody th.cell-name').allTextContents();
      expect(names.slice(0, 2)).toEqual([expect.stringMatching(/^Quarterly review/), 'Plain words']);
      await page.getByRole('button', { name: 'Name' }).click();
      expect(await page.locator('tbody th.cell-name').first().textContent()).toMatch(/^Fleet 000/);
      await audit('scheduled-scans-300');
    }, 180_000);

    it('keeps every row on one line at 1280 px, and the delete confirmation right under its row', async () => {
      await page.setViewportSize(VIEWPORTS.desktop);
      await page.goto(url('/settings/scheduled-scans'));
      await page.locator('tbody tr').nth(99).waitFor();
      const heights = await page
        .locator('tbody tr')
        .evaluateAll((rows: any[]) => rows.map((row: any) => row.getBoundingClientRect().height));
      expect(Math.max(...heights) - Math.min(...heights)).toBeLessThanOrEqual(1);
      expect(Math.max(...heights)).toBeLessThan(56);
      // The three actions sit side by side, inside their cell, and nothing widens the page.
      const cells = await page.locator('tbody tr .cell-actions').evaluateAll((tds: any[]) =>
        tds.map((td: any) => {
          const box = td.getBoundingClientRect();
          const padding = parseFloat((globalThis as any).getComputedStyle(td).paddingRight);
          const buttons = [...td.querySelectorAll('button')].map((b: any) => b.getBoundingClientRect());
          return {
            tops: new Set(buttons.map((b: any) => b.top)).size,
            inside: buttons.every((b: any) => b.right <= box.right - padding && b.left >= box.left),
          };
        }),
      );
      expect(cells.every((cell: any) => cell.tops === 1 && cell.inside)).toBe(true);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        VIEWPORTS.desktop.width,
      );

      const victim = page.locator('tbody tr').nth(80);
      const name = (await victim.locator('th').textContent())!.replace(/:.*$/, '');
      await victim.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('group', { name: `Delete ${name}?` });
      const [rowBox, confirmBox] = [await victim.boundingBox(), await confirm.boundingBox()];
      expect(Math.abs(confirmBox!.y - (rowBox!.y + rowBox!.height))).toBeLessThan(16);
      expect(confirmBox!.y).toBeGreaterThanOrEqual(0);
      expect(confirmBox!.y + confirmBox!.height).toBeLessThanOrEqual(VIEWPORTS.desktop.height);
      await audit('scheduled-scans-confirm-delete');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
    }, 180_000);
  });

  describe('with the keyboard only', () => {
    it('creates a schedule', async () => {
      await page.goto(url('/settings/scheduled-scans'));
      await page.getByText(/schedules\.$/).waitFor();
      await tabTo('New schedule');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor();
      expect(await focused()).toBe('f-name');
      await page.keyboard.type('Keyboard made');
      await tabTo('Target');
      await page.keyboard.type('keys.example');
      await tabTo('Create schedule');
      await page.keyboard.press('Enter');
      await page.getByText('Keyboard made was created.').waitFor();
      expect((await api('/api/scans/schedules/?limit=200')).body.items[0].name).toBe('Keyboard made');
    });

    it('runs it now, opens its scan, and deletes it with the confirmation', async () => {
      const search = page.getByRole('searchbox', { name: 'Search schedules' });
      await search.focus();
      await page.keyboard.type('Keyboard made');
      await page.getByText(/^1 of \d+ schedules match\.$/).waitFor();
      await tabTo('Run now');
      await page.keyboard.press('Enter');
      await page.getByText('Keyboard made is running now.').waitFor();
      await service.runtime.drain();
      const link = page.getByRole('link', { name: /^Last run: success/ });
      await link.waitFor();
      await tabTo(/^Last run: success/, { back: true });
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/scans\/scan_/);
      await page.getByRole('status', { name: 'Scan status' }).getByText('Succeeded').waitFor();

      await page.goBack();
      await page.getByText(/^1 of \d+ schedules match\.$/).waitFor();
      await page.getByRole('searchbox', { name: 'Search schedules' }).focus();
      await tabTo('Delete');
      await page.keyboard.press('Enter');
      expect(await focused()).toBe('Cancel');
      await page.keyboard.press('Escape');
      expect(await focused()).toBe('Delete');
      await page.keyboard.press('Enter');
      await tabTo('Delete schedule');
      await page.keyboard.press('Enter');
      await page.getByText('Keyboard made was deleted.').waitFor();
      await page.getByText('No schedule matches').waitFor();
      expect(await focused()).toBe('schedule-search');
      expect((await api('/api/scans/schedules/?limit=200')).body.items.some((s: any) => s.name === 'Keyboard made')).toBe(false);
    });

    it('after a confirmed delete, focus moves to the row that took its place', async () => {
      await page.getByRole('button', { name: 'Clear search and filters' }).click();
      await page.locator('tbody tr').nth(99).waitFor();
      const second = await page.locator('tbody tr').nth(1).getAttribute('data-schedule-id');
      await page.locator('tbody tr').first().getByRole('button', { name: 'Delete' }).focus();
      await page.keyboard.press('Enter');
      await tabTo('Delete schedule');
      await page.keyboard.press('Enter');
      await page.getByText(/was deleted\.$/).waitFor();
      await page.waitForFunction(
        (id) => (globalThis as any).document.activeElement?.closest('tr')?.getAttribute('data-schedule-id') === id,
        second,
      );
      expect(await focused()).toBe('Delete');
    });
  });

  const audit = (name: string) => browser.audit(name);

  it('saw no Content-Security-Policy violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
