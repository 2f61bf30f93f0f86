import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Settings → Credentials (issue 31, item 4): a credential added, refused on a bad host, rotated and
// deleted through the page; the secret field never shows a stored value; the secret_scan options
// of the schedule form offer the tenant's git_token credentials.
describe.skipIf(!available)('credentials in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const token = 'ghp_e2ePlantedToken0000000000000000000042';

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(
      new Map([
        ['secret_scan', new ScriptedRunner()],
        ['nhi', new ScriptedRunner()],
      ]),
      { allowLoopbackTargets: true },
    ));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const stored = async () => (await service.call('/api/credentials/', { token: await service.token('local') })).body.items;

  it('adds a git token after refusing a host with a scheme, and shows kind, hosts, fingerprint and last use', async () => {
    await page.goto(url('/settings/credentials'));
    await page.getByText('No credentials yet').waitFor();
    await page.getByRole('button', { name: 'Add credential' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add credential' });
    await dialog.getByLabel('Alias').fill('ci-bot');
    await dialog.getByLabel('Token', { exact: true }).fill(token);
    expect(await dialog.getByLabel('Token', { exact: true }).getAttribute('type')).toBe('password');
    await dialog.getByLabel('Allowed hosts').fill('https://git.example.com');
    await dialog.getByRole('button', { name: 'Add credential' }).click();
    await dialog.getByText('must be a host name, not a URL (no scheme)').waitFor();
    expect(await stored()).toEqual([]);
    await dialog.getByLabel('Allowed hosts').fill('git.example.com');
    await dialog.getByRole('button', { name: 'Add credential' }).click();
    const card = page.getByRole('listitem').filter({ hasText: 'ci-bot' });
    await card.getByText('git.example.com').waitFor();
    const [credential] = await stored();
    await card.getByText(credential.fingerprint).waitFor();
    await card.getByText('never').waitFor();
    expect(await page.content()).not.toContain(token);
    await browser.audit('credentials-list');
  });

  it('rotates with an empty secret field, never filled with the stored value', async () => {
    const before = (await stored())[0].fingerprint;
    await page.getByRole('listitem').filter({ hasText: 'ci-bot' }).getByRole('button', { name: 'Rotate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate ci-bot' });
    expect(await dialog.getByLabel('Token', { exact: true }).inputValue()).toBe('');
    await dialog.getByLabel('Token', { exact: true }).fill('ghp_e2eRotatedToken00000000000000000000043');
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    await page.getByText(/ci-bot was rotated/).waitFor();
    expect((await stored())[0].fingerprint).not.toBe(before);
  });

  it('offers the git_token credentials in the secret_scan options of a schedule', async () => {
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: /New schedule/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Scan type').selectOption('secret_scan');
    const options = await dialog.getByLabel('Credential').locator('option').allTextContents();
    expect(options).toEqual(['None', 'ci-bot (git.example.com)']);
    await dialog.getByLabel('Name').fill('Private repo');
    await dialog.getByLabel('Target').fill('https://git.example.com/acme/app.git');
    await dialog.getByLabel('Credential').selectOption('ci-bot');
    await dialog.getByRole('button', { name: 'Create schedule' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const schedules = (await service.call('/api/scans/schedules/', { token: await service.token('local') })).body.items;
    expect(schedules[0].scope).toEqual({ credential: 'ci-bot' });
  });

  it('makes the NHI target a pick of the nhi-kind credentials, on the tile and in the schedule form', async () => {
    const admin = await service.token('local');
    const github = await service.call('/api/credentials/', {
      method: 'POST',
      token: admin,
      body: { alias: 'release-bot', kind: 'github_token', secret: { token: 'ghp_e2eNhiToken0000000000000000000000044' } },
    });
    expect(github.status).toBe(201);
    await page.goto(url('/'));
    const nhi = page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'NHI', exact: true }) });
    await nhi.getByRole('button', { name: 'Scan a target' }).click();
    // ci-bot is a git_token: not a machine identity nhi reviews, so not offered.
    expect(await nhi.getByLabel('Target').locator('option').allTextContents()).toEqual([
      'Choose a credential',
      'release-bot (github_token)',
    ]);
    await nhi.getByLabel('Target').selectOption('release-bot');
    await browser.audit('tile-nhi-target');
    await nhi.getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/[^/]+$/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await service.call(`/api/scans/${scanId}/`, { token: admin })).body).toMatchObject({ scan_type: 'nhi', target: 'release-bot' });

    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: /New schedule/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Scan type').selectOption('nhi');
    expect(await dialog.getByLabel('Target').locator('option').allTextContents()).toEqual([
      'Choose a credential',
      'release-bot (github_token)',
    ]);
    await page.keyboard.press('Escape');
    await service.call('/api/credentials/release-bot/', { method: 'DELETE', token: admin });
  });

  it('deletes after a confirmation', async () => {
    await page.goto(url('/settings/credentials'));
    const card = page.getByRole('listitem').filter({ hasText: 'ci-bot' });
    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('group', { name: 'Delete ci-bot?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/ci-bot was deleted/).waitFor();
    expect(await stored()).toEqual([]);
  });
});
