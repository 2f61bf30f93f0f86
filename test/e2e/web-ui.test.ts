import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureUiBuilt } from '../../local/web-ui.ts';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import { scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';
import { available, launchBrowser, type Browser } from './browser.ts';

describe.skipIf(!available)('web UI in Chromium (playwright-core, the real local runtime)', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const runner = new ScriptedRunner();

  beforeAll(async () => {
    const uiDir = await ensureUiBuilt();
    service = await startTestService({ uiDir, runners: new Map([['email_security', runner]]) });
    browser = await launchBrowser();
    ({ context, page } = browser);
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const main = () => page.locator('main');
  const schedulesOf = async (tenant: string) =>
    (await service.call('/api/scans/schedules/?limit=200', { token: await service.token(tenant) })).body.items as any[];
  const go = (label: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  const row = (name: string) => page.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name, exact: false }) });
  const audit = (name: string) => browser.audit(name);

  it('signs in through the printed one-time URL and drops the token from the address bar', async () => {
    const other = await service.token('other');
    await service.call('/api/scans/schedules/', {
      method: 'POST',
      token: other,
      body: scheduleBody({ name: 'Other tenant secret', target: 'other.example' }),
    });

    await page.goto(await service.runtime.signInUrl());

    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.getByText('local · admin').count()).toBe(1);
    const cookie = (await context.cookies()).find((c) => c.name === 'session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const response = await page.request.get(url('/'));
    expect(response.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers()['cache-control']).toBe('no-cache');
  });

  it('creates a daily schedule and a custom one (30 9 * * 1-5, Europe/Paris) through the form', async () => {
    await go('Settings');
    await page.getByRole('tab', { name: 'Scheduled Scans' }).waitFor();
    await page.getByText('No scheduled scans yet').waitFor();
    await audit('scheduled-scans-empty');

    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Mail posture');
    await dialog.getByLabel('Target').fill('example.com');
    expect(await dialog.getByLabel('Target').getAttribute('placeholder')).toBe('apex domain, e.g. example.com');
    await dialog.getByLabel('Cadence').selectOption('daily');
    await dialog.getByText('cron(0 2 * * ? *)').waitFor();
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    await row('Mail posture').waitFor();

    await page.getByRole('button', { name: 'New schedule' }).click();
    await dialog.getByLabel('Name').fill('Paris weekdays');
    await dialog.getByLabel('Description').fill('Before the Paris office opens');
    await dialog.getByLabel('Target').fill('example.org');
    await dialog.getByLabel('Cadence').selectOption('custom');
    await dialog.getByLabel('Cron expression').fill('30 9 * * 1-5');
    await dialog.getByLabel('Timezone').fill('Europe/Paris');
    await dialog.getByText('cron(30 9 ? * MON-FRI *)').waitFor();
    await dialog.getByText('At 09:30, Monday through Friday (Europe/Paris)').waitFor();
    expect(await dialog.locator('.preview-next li').count()).toBe(5);
    expect(await dialog.locator('.preview-next li').first().textContent()).toMatch(/09:30 (CET|CEST|GMT\+1|GMT\+2)/);
    await dialog.getByLabel('DKIM selectors').fill('s1, google');
    await audit('schedule-form');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    await row('Paris weekdays').waitFor();
    await audit('scheduled-scans');

    const stored = await schedulesOf('local');
    expect(stored.map((s) => [s.name, s.cadence, s.cron_expression, s.timezone, s.target])).toEqual([
      ['Paris weekdays', 'custom', '30 9 * * 1-5', 'Europe/Paris', 'example.org'],
      ['Mail posture', 'daily', null, 'UTC', 'example.com'],
    ]);
    expect(stored[0].scope).toEqual({ dkim_selectors: ['s1', 'google'] });
    expect(stored[0].trigger.expressions).toEqual(['cron(30 9 ? * MON-FRI *)']);
  });

  it('refuses a cron the preview knows is invalid before sending, once, under Cron expression, and stores nothing', async () => {
    const before = await schedulesOf('local');
    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Too often');
    await dialog.getByLabel('Target').fill('example.com');
    await dialog.getByLabel('Cadence').selectOption('custom');
    await dialog.getByLabel('Cron expression').fill('*/2 * * * *');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();

    const error = dialog.locator('#cron_expression-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Cron expression fires more often than every 5 minutes.');
    expect(await dialog.getByText('fires more often than every 5 minutes').count()).toBe(1);
    expect(await dialog.getByLabel('Cron expression').getAttribute('aria-describedby')).toContain('cron_expression-error');
    expect(await dialog.getByLabel('Cron expression').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('f-cron');
    await audit('schedule-form-error');
    expect(await schedulesOf('local')).toEqual(before);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('toggles, edits, runs now (running, then success) and deletes as admin', async () => {
    const id = (await schedulesOf('local')).find((s) => s.name === 'Mail posture')!.id;
    const enabled = row('Mail posture').getByRole('switch', { name: 'Enabled' });
    expect(await enabled.getAttribute('aria-checked')).toBe('true');
    await enabled.click();
    await row('Mail posture').getByRole('switch', { name: 'Enabled', checked: false }).waitFor();
    expect((await service.call(`/api/scans/schedules/${id}/`, { token: await service.token('local') })).body.enabled).toBe(false);
    await row('Mail posture').getByRole('switch', { name: 'Enabled' }).click();
    await row('Mail posture').getByRole('switch', { name: 'Enabled', checked: true }).waitFor();

    await row('Mail posture').getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Mail posture');
    await dialog.getByLabel('Name').fill('Mail posture (prod)');
    await dialog.getByLabel('Leak').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row('Mail posture (prod)').waitFor();
    const edited = (await service.call(`/api/scans/schedules/${id}/`, { token: await service.token('local') })).body;
    expect([edited.name, edited.scope]).toEqual(['Mail posture (prod)', { leak: true }]);

    await row('Mail posture (prod)').getByRole('button', { name: 'Run now' }).click();
    await row('Mail posture (prod)').getByText('Running').waitFor();
    await service.runtime.drain();
    await row('Mail posture (prod)').getByText('Success').waitFor();
    const link = row('Mail posture (prod)').getByRole('link', { name: /Last run: success/ });
    expect(await link.getAttribute('href')).toMatch(/^\/scans\/scan_/);

    await row('Paris weekdays').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Delete Paris weekdays?' }).getByRole('button', { name: 'Delete schedule' }).click();
    await page.getByText('Paris weekdays was deleted.').waitFor();
    await row('Paris weekdays').waitFor({ state: 'detached' });
    expect((await schedulesOf('local')).map((s) => s.name)).toEqual(['Mail posture (prod)']);
    expect(await main().textContent()).not.toContain('Other tenant secret');
  });

  it('launches a manual scan from its tile, and its page reaches a final status with findings', async () => {
    await go('Scan');
    const launch = page.getByRole('region', { name: 'Launch a scan' });
    await launch.getByRole('heading', { name: 'Email Security' }).waitFor();
    expect(await launch.getByRole('listitem').count()).toBe(12);
    expect(await launch.getByText('No runner in this deployment.').count()).toBe(11);
    await audit('scan-launcher');

    const tile = launch.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Email Security' }) });
    await tile.getByRole('button', { name: 'Scan a target' }).click();
    await tile.getByLabel('Target').fill('example.net');
    await tile.getByLabel('Discover').check();
    await tile.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/scan_/);
    await page.getByRole('status', { name: 'Scan status' }).getByText('Queued').waitFor();
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await service.call(`/api/scans/${scanId}/`, { token: await service.token('local') })).body).toMatchObject({
      target: 'example.net',
      scope: { discover: true },
      trigger: 'manual',
    });

    await service.runtime.drain();
    await page.getByRole('status', { name: 'Scan status' }).getByText('Succeeded').waitFor();
    await page.getByRole('heading', { name: 'finding 1' }).waitFor();
    await audit('scan');

    await go('Scans');
    await page.getByRole('link', { name: 'example.net' }).waitFor();
    await audit('scans');

    await go('Issues');
    await page.getByLabel('Severity').selectOption('medium');
    await page.getByLabel('Target').fill('Example.NET');
    await page.waitForURL(/target=Example\.NET/);
    const issues = page.getByRole('table', { name: /^Issues/ });
    await expect.poll(() => issues.locator('tbody th a').allTextContents()).toEqual(['finding 1']);
    await issues.getByRole('link', { name: 'finding 1' }).click();
    await page.getByRole('heading', { name: 'Remediation' }).waitFor();
    await audit('issue-from-scan');
  });

  it('turns the Ask to scan sentence into the shown request, and sends it only on Send', async () => {
    await go('Scan');
    const before = await schedulesOf('local');
    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('check mail security of example.com every weekday at 9:30 Paris time');
    await page.getByRole('button', { name: 'Preview' }).click();

    const request = page.getByLabel('Request', { exact: true });
    await request.waitFor();
    const shown = (await request.textContent())!;
    expect(shown.split('\n')[0]).toBe('POST /api/scans/schedules/');
    expect(JSON.parse(shown.slice(shown.indexOf('\n')))).toEqual({
      name: 'Email Security of example.com',
      scan_type: 'email_security',
      target: 'example.com',
      cadence: 'custom',
      cron_expression: '30 9 * * 1-5',
      timezone: 'Europe/Paris',
    });
    await audit('ask-to-scan');
    expect(await schedulesOf('local')).toEqual(before);

    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Schedule created').waitFor();
    const created = (await schedulesOf('local')).find((s) => s.name === 'Email Security of example.com');
    expect(created).toMatchObject({ cron_expression: '30 9 * * 1-5', timezone: 'Europe/Paris', enabled: true });

    await page.getByRole('textbox', { name: 'Ask to scan' }).fill('scan my website');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Not understood.').waitFor();
    await audit('ask-to-scan-not-understood');
  });

  it('shows an operator every control but Delete', async () => {
    await context.clearCookies();
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await audit('sign-in');
    await page.getByLabel('Session token').fill(await service.token('local', 'operator'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('local · operator').waitFor();
    await row('Mail posture (prod)').waitFor();

    expect(await main().getByRole('button', { name: 'Run now' }).count()).toBeGreaterThan(0);
    expect(await main().getByRole('button', { name: 'New schedule' }).count()).toBe(1);
    expect(await main().getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('shows a viewer no mutating control, and never another tenant', async () => {
    await page.getByLabel('Session token').fill(await service.token('local', 'viewer'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('local · viewer').waitFor();
    await go('Settings');
    await row('Mail posture (prod)').waitFor();

    const mutating = /New schedule|Run now|Edit|Delete|Create schedule|Save|Start scan|Scan a target|Send|Preview/;
    expect(await main().getByRole('button', { name: mutating }).count()).toBe(0);
    expect(await main().getByRole('switch').count()).toBe(0);
    expect(await main().textContent()).not.toContain('Other tenant secret');
    await audit('scheduled-scans-viewer');

    await go('Scan');
    await page.getByRole('region', { name: 'Launch a scan' }).getByRole('heading', { name: 'Email Security' }).waitFor();
    expect(await main().getByRole('button', { name: mutating }).count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Ask to scan' }).count()).toBe(0);
  });

  it('loads the Scheduled Scans tab with 200 schedules, 100 rows drawn (first-load time printed, not asserted)', async () => {
    const token = await service.token('bench');
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          service.call('/api/scans/schedules/', {
            method: 'POST',
            token,
            body: scheduleBody({
              name: `Bench ${String(i + j).padStart(3, '0')}`,
              cadence: 'custom',
              cron_expression: `${(i + j) % 60} ${(i + j) % 24} * * *`,
              timezone: 'Europe/Paris',
            }),
          }),
        ),
      );
    }
    await context.clearCookies();
    await context.addCookies([{ name: 'session', value: token, url: service.runtime.url, httpOnly: true, sameSite: 'Strict' }]);
    const fresh = await context.newPage();

    const started = performance.now();
    await fresh.goto(url('/settings/scheduled-scans'));
    await fresh.locator('tbody tr').nth(99).waitFor();
    const elapsed = performance.now() - started;

    expect(await fresh.locator('tbody tr').count()).toBe(100);
    await fresh.getByText('200 schedules.').waitFor();
    console.log(
      `figure: Scheduled Scans tab first load with 200 schedules: ${elapsed.toFixed(0)} ms (navigation to the first 100 rows rendered, Chromium headless)`,
    );
    await fresh.close();
  }, 300_000);

  it('ran axe on every page and saw no Content-Security-Policy violation', () => {
    expect(browser.audited).toEqual(
      expect.arrayContaining([
        'sign-in',
        'scheduled-scans',
        'schedule-form',
        'scan-launcher',
        'ask-to-scan',
        'scans',
        'scan',
        'issue-from-scan',
      ]),
    );
    expect(browser.cspViolations).toEqual([]);
  });
});
