import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunnerFinding } from '../../shared/domain/finding.ts';
import type { TestService } from '../helpers/local-service.ts';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Issue 34's remainder in the UI, on the real local runtime: Settings → SLA, due dates and the
// Overdue filter on the Issues page, an issue's assignee, comments and history, and a notification
// rule's delivery (each event or a digest). Every action goes through the API.

const DAY = 86_400_000;

function mailFinding(rule_id: string, severity: RunnerFinding['severity'], title: string): RunnerFinding {
  return { rule_id, severity, title, description: `${title}.`, evidence: { rule: rule_id }, remediation: `Fix: ${title}.` };
}

describe.skipIf(!available)('SLA, issue activity and digest delivery in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const runner = new ScriptedRunner();

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(new Map([['email_security', runner]])));
    runner.behaviour = async () => ({
      findings: [
        mailFinding('mailscan.spf.missing', 'high', 'No SPF record'),
        mailFinding('mailscan.dmarc.missing', 'medium', 'No DMARC record'),
      ],
    });
    const created = await service.call('/api/scans/', {
      method: 'POST',
      token: await service.token('local'),
      body: { scan_type: 'email_security', target: 'mail.example.com' },
    });
    expect(created.status).toBe(202);
    await service.runtime.drain();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string) => (await service.call(path, { token: await service.token('local') })).body;
  const table = () => page.getByRole('table', { name: /^Issues/ });
  const rowTitles = async () => (await table().locator('tbody th a').allTextContents()).sort();

  it('refuses a bad SLA under its field and stores nothing, then saves one', async () => {
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('tab', { name: 'SLA' }).click();
    await page.getByRole('heading', { name: 'Issue SLA' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/sla');
    await page.getByText('No SLA is set yet: no issue has a due date.').waitFor();

    await page.getByLabel('High (days)').fill('0');
    await page.getByRole('button', { name: 'Save SLA' }).click();
    await page.getByText('High must be at least 1 day.').waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('sla-high');
    expect(await page.getByLabel('High (days)').getAttribute('aria-invalid')).toBe('true');
    await browser.audit('settings-sla-error');
    expect((await api('/api/settings/sla')).updated_at).toBeNull();

    await page.getByLabel('Critical (days)').fill('3');
    await page.getByLabel('High (days)').fill('7');
    await page.getByLabel('Medium (days)').fill('30');
    await page.getByRole('button', { name: 'Save SLA' }).click();
    await page.getByText("SLA saved. Every issue's due date follows it.").waitFor();
    expect(await api('/api/settings/sla')).toMatchObject({
      critical: 3,
      high: 7,
      medium: 30,
      low: null,
      info: null,
      updated_by: 'admin@local',
    });
    await page.getByText(/^Last set .* by admin@local\.$/).waitFor();
    await browser.audit('settings-sla');
  });

  it('shows due dates and lists only the overdue issues when asked', async () => {
    service.clock.advance(8 * DAY);
    // Eight days on, the session has expired: sign in again through a fresh link.
    await page.goto(await service.runtime.signInUrl());
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.goto(url('/issues'));
    await expect.poll(rowTitles).toEqual(['No DMARC record', 'No SPF record']);
    const spf = table().locator('tbody tr').filter({ hasText: 'No SPF record' });
    const dmarc = table().locator('tbody tr').filter({ hasText: 'No DMARC record' });
    await spf.getByText('Overdue').waitFor();
    expect(await dmarc.getByText('Overdue').count()).toBe(0);
    expect(await table().locator('thead th').allTextContents()).toContain('Due');

    await page.getByLabel('Overdue').check();
    await expect.poll(rowTitles).toEqual(['No SPF record']);
    expect(new URL(page.url()).searchParams.get('overdue')).toBe('true');
    await browser.audit('issues-overdue');
  });

  it('assigns an issue, comments on it, and shows every status change with who and why', async () => {
    await table()
      .getByRole('link', { name: /^No SPF record/ })
      .click();
    await page.getByRole('heading', { name: /^No SPF record/, level: 1 }).waitFor();
    await page.getByText('Overdue', { exact: true }).waitFor();
    await page.getByText('Nobody is assigned.').waitFor();

    await page.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Type a user id or an email to assign.').waitFor();
    await page.getByLabel('Assign to').fill('not an email@');
    await page.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Assignee must be a user id or an email.').waitFor();
    await page.getByLabel('Assign to').fill('dana@example.com');
    await page.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Assigned to dana@example.com.').waitFor();

    await page.getByLabel('Comment', { exact: true }).fill('SPF goes in with the DNS change on Friday.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    const comments = page.getByRole('list', { name: 'Comments, oldest first' });
    await comments.getByText('SPF goes in with the DNS change on Friday.').waitFor();
    expect(await page.getByLabel('Comment', { exact: true }).inputValue()).toBe('');

    await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Accept risk' }).click();
    const dialog = page.getByRole('dialog', { name: 'Accept the risk' });
    await dialog.getByLabel('Reason').fill('The domain sends no mail until the migration.');
    await dialog.getByRole('button', { name: 'Accept risk' }).click();
    const history = page.getByRole('list', { name: 'Status changes, newest first' });
    await history.getByText('Open → Accepted risk').waitFor();
    await history.getByText('The domain sends no mail until the migration.').waitFor();
    expect(await history.getByRole('listitem').first().textContent()).toContain('admin@local');
    // An accepted risk is not overdue.
    expect(await page.getByText('Overdue', { exact: true }).count()).toBe(0);
    await browser.audit('issue-activity');

    const stored = (await api('/api/issues/')).items.find((issue: { title: string }) => issue.title === 'No SPF record');
    const detail = await api(`/api/issues/${stored.id}/`);
    expect(detail).toMatchObject({ assignee: 'dana@example.com', status: 'accepted_risk', overdue: false });
    expect(detail.comments).toEqual([{ at: expect.any(String), by: 'admin@local', text: 'SPF goes in with the DNS change on Friday.' }]);
    expect(detail.history.at(-1)).toMatchObject({ by: 'admin@local', from: 'open', to: 'accepted_risk' });

    await page.getByRole('button', { name: 'Unassign' }).click();
    await page.getByText('Nobody is assigned.').waitFor();
  });

  it('creates a notification rule that sends an hourly digest, and shows its delivery', async () => {
    await page.goto(url('/settings/notifications'));
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('dialog', { name: 'New notification rule' });
    await form.getByLabel('Name').fill('Morning digest');
    await form.getByLabel('Email', { exact: true }).check();
    await form.getByLabel('Email address').fill('secops@example.com');
    expect(await form.getByLabel('Immediately, one message per event').isChecked()).toBe(true);
    await form.getByLabel('One digest a day (UTC)').check();
    await browser.audit('notification-form-digest');
    await form.getByRole('button', { name: 'Create rule' }).click();

    const card = page.getByRole('listitem', { name: 'Morning digest' });
    await card.getByText('One digest a day (UTC)').waitFor();
    const [stored] = (await api('/api/notifications/')).items;
    expect(stored).toMatchObject({ name: 'Morning digest', kind: 'email', delivery: 'digest_daily' });

    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: /Edit/ });
    expect(await edit.getByLabel('One digest a day (UTC)').isChecked()).toBe(true);
    await edit.getByLabel('One digest an hour').check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await card.getByText('One digest an hour').waitFor();
    expect((await api('/api/notifications/')).items[0].delivery).toBe('digest_hourly');
    await browser.audit('notification-rules-digest');
  });

  it('saw no Content-Security-Policy violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
