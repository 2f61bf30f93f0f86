import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { closedTcpPort } from '../helpers/closed-port.ts';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import { scheduleBody, type TestService } from '../helpers/local-service.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Settings → Notifications (issue 24, item 4): rules created, tested, edited, switched off and
// deleted through the page, against the real local runtime and a loopback receiver that verifies
// the signature with the secret the page showed once.
describe.skipIf(!available)('notification rules in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    ({ service, browser, page } = await startSignedIn(new Map([['email_security', new ScriptedRunner()]]), { allowLoopbackTargets: true }));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.runtime.url });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string, options: Parameters<TestService['call']>[1] = {}) =>
    service.call(path, { token: await service.token('local'), ...options });
  const storedRules = async () => (await api('/api/notifications/')).body.items as Array<Record<string, unknown>>;
  let secret = '';
  let ruleId = '';

  it('opens from a Settings tab and says there are no rules yet', async () => {
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('tab', { name: 'Notifications' }).click();
    await page.getByRole('heading', { name: 'Notification rules' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/notifications');
    expect(await page.getByRole('tab', { name: 'Notifications' }).getAttribute('aria-selected')).toBe('true');
    await page.getByText('No notification rules yet').waitFor();
    // The arrow keys move between the tabs.
    await page.getByRole('tab', { name: 'Notifications' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('heading', { name: 'Scheduled Scans', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/scheduled-scans');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Notification rules' }).waitFor();
    await browser.audit('notifications-empty');
  });

  it('refuses an invalid URL under its field, in the browser and at the server, and stores nothing', async () => {
    await page.getByRole('button', { name: 'New rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'New notification rule' });
    await dialog.getByLabel('Name').fill('Ops webhook');
    await dialog.getByLabel('URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    await dialog.getByText('URL must be a web address starting with https://, such as https://hooks.example.com/scan-service.').waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('n-url');
    expect(await dialog.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    await browser.audit('notification-form-error');

    // Well formed, but the endpoint policy says no: the server's reason lands under URL.
    await dialog.getByLabel('URL').fill('http://hooks.example.com/scan-service');
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    await dialog.getByText('URL must be an https URL.').waitFor();
    expect(await storedRules()).toEqual([]);
    // The server's error goes as soon as its field changes.
    await dialog.getByLabel('URL').fill(receiver.url);
    expect(await dialog.getByText('URL must be an https URL.').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('creates a webhook rule and shows its secret once, with a copy button', async () => {
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('dialog', { name: 'New notification rule' });
    await form.getByLabel('Name').fill('Ops webhook');
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Scan finished').check();
    await form.getByLabel('Minimum severity').selectOption('medium');
    await form.getByRole('button', { name: 'Create rule' }).click();

    const reveal = page.getByRole('dialog', { name: 'Webhook secret' });
    await reveal.getByText("Copy this secret now: you won't see it again.").waitFor();
    secret = await reveal.getByLabel('Signing secret of Ops webhook').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await reveal.getByRole('button', { name: 'Copy' }).click();
    await reveal.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(secret);
    await browser.audit('notification-secret');
    await reveal.getByRole('button', { name: 'I have copied it' }).click();

    const [stored] = await storedRules();
    ruleId = stored.id as string;
    expect(stored).toMatchObject({
      name: 'Ops webhook',
      kind: 'webhook',
      url: receiver.url,
      events: ['scan.finished', 'issue.opened', 'issue.reopened'],
      min_severity: 'medium',
      scan_types: null,
      schedule_ids: null,
      enabled: true,
    });
    // Never again: not on the page, not from the API.
    await page.getByRole('listitem', { name: 'Ops webhook' }).waitFor();
    expect(await page.locator('body').textContent()).not.toContain(secret);
    expect(JSON.stringify((await api(`/api/notifications/${ruleId}/`)).body)).not.toContain(secret);
  });

  it('sends a test that the receiver accepts with a valid signature, and says so', async () => {
    receiver.useSecret(secret);
    const card = page.getByRole('listitem', { name: 'Ops webhook' });
    await card.getByRole('button', { name: 'Send test' }).click();
    const result = card.getByRole('status', { name: 'Test of Ops webhook' });
    await result.getByText('Test delivered.').waitFor();
    expect(await result.locator('dt').allTextContents()).toEqual(['Delivered', 'HTTP status', 'Error', 'Event id']);
    expect((await result.locator('dd').allTextContents()).slice(0, 3)).toEqual(['Yes', '204', 'None']);
    expect(receiver.badSignatures).toEqual([]);
    expect([...receiver.accepted.values()].map((delivery) => delivery.eventType)).toEqual(['notification.test']);
    await browser.audit('notification-test-delivered');
  });

  it('edits the URL to an endpoint that does not answer, and the test says it was not delivered and why', async () => {
    const card = page.getByRole('listitem', { name: 'Ops webhook' });
    await card.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('dialog', { name: 'Edit Ops webhook' });
    expect(await form.getByLabel('Slack').isDisabled()).toBe(true);
    await form.getByLabel('URL').fill(`http://127.0.0.1:${await closedTcpPort()}/hook`);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Ops webhook was saved.').waitFor();
    await card.getByRole('button', { name: 'Send test' }).click();
    const result = card.getByRole('status', { name: 'Test of Ops webhook' });
    await result.getByText('Test not delivered.').waitFor();
    const [delivered, status, error] = await result.locator('dd').allTextContents();
    expect([delivered, status]).toEqual(['No', 'None: no HTTP answer']);
    expect(error).not.toBe('None');
    await browser.shot('notification-test-failed');
  });

  it('creates an email rule limited to a scan type and a schedule, with no secret to show', async () => {
    const schedule = await api('/api/scans/schedules/', { method: 'POST', body: scheduleBody({ name: 'Nightly mail posture' }) });
    await page.reload();
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('dialog', { name: 'New notification rule' });
    await form.getByLabel('Name').fill('Security inbox');
    await form.getByLabel('Email', { exact: true }).check();
    await form.getByLabel('Email address').fill('security@example.com');
    await form.getByLabel('All scan types').uncheck();
    await form.getByLabel('Email Security').check();
    await form.getByLabel('All scans, scheduled or not').uncheck();
    await form
      .getByRole('group', { name: 'Only scans of these schedules' })
      .getByLabel(/Nightly mail posture/)
      .check();
    await browser.audit('notification-form-email');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('listitem', { name: 'Security inbox' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Webhook secret' }).count()).toBe(0);
    const stored = (await storedRules()).find((rule) => rule.name === 'Security inbox');
    expect(stored).toMatchObject({
      kind: 'email',
      address: 'security@example.com',
      url: null,
      scan_types: ['email_security'],
      schedule_ids: [schedule.body.id],
    });
    await browser.shot('notifications-list');
  });

  it('switches a rule off and deletes it after a confirmation', async () => {
    const card = page.getByRole('listitem', { name: 'Ops webhook' });
    await card.getByRole('switch', { name: 'Enabled' }).click();
    await page.getByText('Ops webhook is disabled: nothing is sent to it.').waitFor();
    expect((await api(`/api/notifications/${ruleId}/`)).body.enabled).toBe(false);
    expect(await card.getByRole('switch', { name: 'Enabled' }).getAttribute('aria-checked')).toBe('false');

    await card.getByRole('button', { name: 'Delete' }).click();
    const confirm = card.getByRole('group', { name: 'Delete Ops webhook?' });
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Cancel');
    await browser.audit('notification-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByText('Ops webhook was deleted.').waitFor();
    expect((await storedRules()).map((rule) => rule.name)).toEqual(['Security inbox']);
  });

  it('tells a viewer that only an admin manages the rules, and asks the API nothing', async () => {
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/notifications')) asked.push(request.url());
    });
    await page.goto(await service.runtime.signInUrl('local', 'viewer'));
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.goto(url('/settings/notifications'));
    await page.getByText('Only an admin of this tenant can see and change its notification rules.').waitFor();
    expect(await page.getByRole('button', { name: 'New rule' }).count()).toBe(0);
    expect(asked).toEqual([]);
    await browser.audit('notifications-viewer');
  });

  it('saw no Content-Security-Policy violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
