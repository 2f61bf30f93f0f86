import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { ensureUiBuilt } from '../../local/web-ui.ts';
import { runnerOf } from '../../shared/adapters/runners/engine-registry.ts';
import mailscan from '../../layers/mailscan/manifest.ts';
import { buildCli } from '../../layers/mailscan/test/helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../../layers/mailscan/test/helpers/dns-server.ts';
import { zoneDir } from '../../layers/mailscan/test/helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/local-service.ts';
import { available, launchBrowser, SHOTS, VIEWPORTS, type Browser } from './browser.ts';

const fixture = (path: string) => readFileSync(fileURLToPath(new URL(`../fixtures/mailscan/${path}`, import.meta.url)));
// Yahoo's report shape, about goodmail.com (target validation wants a public suffix; the zone is good.test's).
const REPORT = Buffer.from(
  fixture('rua/yahoo.xml').toString().replaceAll('good.test', 'goodmail.com').replaceAll('GOOD.TEST', 'GOODMAIL.COM'),
);
const MESSAGE = fixture('header/received-anomalies.eml');
const UPLOAD = /\/_local\/artifacts\/upload\?token=/;

describe.skipIf(!available)('web UI uploads in Chromium: DMARC reports and an .eml through the real local runtime and mailscan', () => {
  let dns: TestDnsServer;
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const text = readFileSync(join(zoneDir, 'good.test.zone'), 'utf8').replaceAll('good.test', 'goodmail.com');
    dns = await startDnsServer({ zones: [{ text, origin: 'goodmail.com' }] });
    const [uiDir, bin] = await Promise.all([ensureUiBuilt(), buildCli()]);
    const env = { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_ALLOW_LOOPBACK: '1' };
    service = await startTestService({
      uiDir,
      runners: ({ artifacts }) => new Map([['email_security', runnerOf(mailscan, { bin, env, artifacts })]]),
    });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(await service.runtime.signInUrl('acme'));
    await page.getByText('acme · admin').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await dns?.close();
  });

  const tile = () =>
    page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Email Security' }) });
  const files = () => tile().getByRole('list', { name: 'Uploaded files' });
  const file = (name: string) => files().getByRole('listitem').filter({ hasText: name });

  /** Opens a fresh Email Security tile for goodmail.com without reputation (no network). */
  async function openTile(): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scan', exact: true }).click();
    await tile().getByRole('button', { name: 'Scan a target' }).click();
    await tile().getByLabel('Target').fill('goodmail.com');
    await tile().getByLabel('Reputation').uncheck();
  }

  it('uploads two reports and a message, holds Start scan while one is in flight, and shows each status with its reason', async () => {
    await openTile();
    // Hold the report's PUT on its way to the local server: the upload is observably in flight.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const puts: { url: string; headers: Record<string, string>; size: number }[] = [];
    await page.route(UPLOAD, async (route: Route) => {
      const request = route.request();
      puts.push({ url: request.url(), headers: await request.allHeaders(), size: request.postDataBuffer()?.length ?? 0 });
      if (puts.length === 1) await held;
      await route.continue();
    });

    await tile()
      .getByLabel('DMARC aggregate reports')
      .setInputFiles([{ name: 'yahoo.xml', mimeType: 'text/xml', buffer: REPORT }]);
    await file('yahoo.xml').getByText('Uploading').waitFor();
    expect(await tile().getByRole('button', { name: 'Start scan' }).isDisabled()).toBe(true);
    await tile().getByText('Start scan waits until every file is uploaded and checked.').waitFor();
    await tile()
      .locator('.tile-form')
      .screenshot({ path: join(SHOTS, 'scan-launcher-uploading-desktop-light.png'), animations: 'disabled' });
    release();

    await tile()
      .getByLabel('DMARC aggregate reports')
      .setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just text, not XML') }]);
    await tile()
      .getByLabel('Message (.eml)')
      .setInputFiles([{ name: 'suspicious.eml', mimeType: 'message/rfc822', buffer: MESSAGE }]);
    await file('yahoo.xml').getByText('Ready').waitFor();
    await file('suspicious.eml').getByText('Ready').waitFor();
    await file('notes.txt').getByText('Rejected').waitFor();
    expect(await file('notes.txt').textContent()).toContain('notes.txt: not XML. Not sent with the scan.');
    expect(await tile().getByRole('status', { name: 'Upload status' }).textContent()).toMatch(/: (ready|rejected)/);
    expect(await tile().getByRole('button', { name: 'Start scan' }).isEnabled()).toBe(true);
    await page.unroute(UPLOAD);

    // Each PUT carried exactly the announced type and the file's bytes (Chromium adds Content-Length
    // after interception; the local endpoint refuses any other length, as S3 would).
    expect(puts.map((put) => [put.headers['content-type'], put.size]).sort()).toEqual([
      ['application/octet-stream', 18],
      ['message/rfc822', MESSAGE.length],
      ['text/xml', REPORT.length],
    ]);
    expect(puts.every((put) => put.headers.cookie === undefined)).toBe(true);
    await browser.audit('scan-launcher-uploads');
    // The files alone at phone width, where their rows reflow (the page shot is too tall to read).
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(VIEWPORTS.mobile);
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      await tile()
        .getByRole('group', { name: 'Files to analyse' })
        .screenshot({ path: join(SHOTS, `scan-launcher-uploads-files-mobile-${colorScheme}.png`), animations: 'disabled' });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('launches with the ready files only, and the scan page shows rua and header findings', async () => {
    const token = await service.token('acme');
    await tile().getByRole('button', { name: 'Start scan' }).click();
    await page.waitForURL(/\/scans\/scan_/);
    const scanId = new URL(page.url()).pathname.split('/').pop()!;
    const queued = (await service.call(`/api/scans/${scanId}/`, { token })).body;
    const [report, message] = await Promise.all(
      [queued.scope.rua[0], queued.scope.header].map(async (id: string) => (await service.call(`/api/artifacts/${id}/`, { token })).body),
    );
    expect(queued.scope).toEqual({ reputation: false, rua: [report.id], header: message.id });
    expect([report.filename, report.status, message.filename, message.status]).toEqual(['yahoo.xml', 'ready', 'suspicious.eml', 'ready']);

    await service.runtime.drain();
    await page.getByRole('status', { name: 'Scan status' }).getByText('Succeeded').waitFor();
    await page.getByRole('heading', { name: 'DMARC alignment failures in aggregate reports' }).waitFor();
    await page.getByRole('heading', { name: 'Anomalous Received chain' }).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Anomalous Received chain' }).count()).toBe(5);
    expect(await page.locator('.finding').filter({ hasText: '203.0.113.9' }).count()).toBeGreaterThan(0);
    // High findings beside an A: the summary says the grade is the mail posture's, not the findings'.
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.getByLabel(/^Mail posture grade [A-F]$/).waitFor();
    await summary.getByText(/^Mail posture \d+\/100$/).waitFor();
    await browser.audit('scan-rua-header');
  });

  it('shows a failed upload with its error (the upload URL expired before the PUT), and saw no Content-Security-Policy violation', async () => {
    await openTile();
    // The PUT reaches the real local endpoint 16 minutes after the URL was issued: 403 request_expired.
    await page.route(UPLOAD, async (route) => {
      service.clock.advance(16 * 60 * 1000);
      await route.continue();
    });
    await tile()
      .getByLabel('Message (.eml)')
      .setInputFiles([{ name: 'late.eml', mimeType: 'message/rfc822', buffer: MESSAGE }]);
    await file('late.eml').getByText('Failed').waitFor();
    await page.unroute(UPLOAD);
    expect(await file('late.eml').textContent()).toContain('the upload was refused (HTTP 403)');
    expect(await tile().getByRole('button', { name: 'Start scan' }).isEnabled()).toBe(true);
    await file('late.eml').getByRole('button', { name: 'Remove late.eml' }).click();
    await files().waitFor({ state: 'detached' });

    expect(browser.audited).toEqual(['scan-launcher-uploads', 'scan-rua-header']);
    expect(browser.cspViolations).toEqual([]);
  });
});
