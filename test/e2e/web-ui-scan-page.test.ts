import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { finding, ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// The scan page tells the truth (issue 25, items 2, 5 and 8): a failed or partial scan says so
// first, findings come most severe first, the grade's colour is its band, evidence reads as fields.
describe.skipIf(!available)('scan page in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const runner = new ScriptedRunner();
  const sbomRunner = new ScriptedRunner();

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(
      new Map([
        ['email_security', runner],
        ['sbom', sbomRunner],
      ]),
    ));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  /** A manual scan of `target` run to its end with what `behaviour` returns, then its page opened. */
  async function scanPage(target: string, behaviour: ScriptedRunner['behaviour'], tenant = 'local'): Promise<string> {
    runner.behaviour = behaviour;
    const created = await service.call('/api/scans/', {
      method: 'POST',
      token: await service.token(tenant),
      body: { scan_type: 'email_security', target },
    });
    await service.runtime.drain();
    if (tenant === 'local') await page.goto(`${service.runtime.url}/scans/${created.body.id}`);
    return created.body.id as string;
  }
  const statusText = () => page.getByRole('status', { name: 'Scan status' }).textContent();

  it('leads a failed scan with the failure and its error in words, never the clean-result message', async () => {
    await scanPage('failed.example', async () => {
      throw new Error('DNS resolver timed out after 10 s');
    });
    await page.getByRole('heading', { name: 'This scan failed' }).waitFor();
    expect(await statusText()).toBe('Failed');
    const why = page.getByRole('list', { name: 'Why' });
    expect(await why.locator('summary').allTextContents()).toEqual(['failed.example: DNS resolver timed out after 10 s']);
    await page.getByText('No findings: the scan failed before it could report any.').waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/Nothing matches these filters|found nothing to report/);
    expect(await page.locator('main .empty').count()).toBe(0);
    // The outcome comes before the summary and the findings.
    const order = await page.locator('main h2').allTextContents();
    expect(order).toEqual(['This scan failed', 'What changed', expect.stringMatching(/^Findings/), 'Checks', 'Log']);
    await page.getByText('No checks: the scan failed before reporting any.').waitFor();
    // The log is its lines, read through the API, never a path on the server's disk.
    const log = page.getByRole('list', { name: 'Log lines' });
    await log.getByText('scan started').waitFor();
    expect(await log.textContent()).toContain('DNS resolver timed out after 10 s');
    expect(await page.locator('main').textContent()).not.toMatch(/\.jsonl|\/logs\/scans\//);
    await browser.audit('scan-failed');
  });

  it("shows an sbom scan's component count and download, and the components added since the previous inventory", async () => {
    const inventory = (purls: string[]) => async () => ({
      findings: [],
      outputs: [
        {
          name: 'sbom',
          purpose: 'sbom',
          contentType: 'application/vnd.cyclonedx+json',
          document: {
            bomFormat: 'CycloneDX',
            specVersion: '1.6',
            components: purls.map((purl) => ({ type: 'library', name: purl, purl })),
          },
        },
      ],
    });
    const sbomScan = async () => {
      const created = await service.call('/api/scans/', {
        method: 'POST',
        token: await service.token('local'),
        body: { scan_type: 'sbom', target: 'https://git.example/acme/app.git' },
      });
      await service.runtime.drain();
      await page.goto(`${service.runtime.url}/scans/${created.body.id}`);
      return created.body.id as string;
    };
    sbomRunner.behaviour = inventory(['pkg:npm/left-pad@1.3.0']);
    const first = await sbomScan();
    await page.getByText('First inventory of this target: 1 component.').waitFor();

    sbomRunner.behaviour = inventory(['pkg:npm/left-pad@1.3.0', 'pkg:npm/lodash@4.17.20']);
    const second = await sbomScan();
    await page.getByRole('heading', { name: /Components since the previous inventory: 1 added, 0 removed/ }).waitFor();
    expect(await page.getByRole('list', { name: 'Added' }).textContent()).toBe('pkg:npm/lodash@4.17.20');
    expect(await page.getByRole('link', { name: 'the previous inventory' }).getAttribute('href')).toBe(`/scans/${first}`);
    expect(await page.locator('.component-count').textContent()).toBe('2');
    const download = page.getByRole('link', { name: /Download the SBOM/ });
    const href = await download.getAttribute('href');
    expect(href).toBe(`/api/scans/${second}/sbom/`);
    // The link works with the session cookie alone, as a click would.
    const fetched = await page.evaluate(async (url) => (await fetch(url, { credentials: 'same-origin' })).json(), href!);
    expect((fetched as { components: { purl: string }[] }).components.map((component) => component.purl)).toEqual([
      'pkg:npm/left-pad@1.3.0',
      'pkg:npm/lodash@4.17.20',
    ]);
    await browser.audit('scan-sbom');
  });

  it('says a partial scan is partial, above the findings it did produce', async () => {
    await scanPage('partial.example', async () => ({
      findings: [finding(1)],
      errors: ['the reputation checks could not reach the DNSBLs'],
    }));
    await page.getByRole('heading', { name: 'This scan finished partially' }).waitFor();
    expect(await page.getByRole('list', { name: 'Why' }).locator('summary').allTextContents()).toEqual([
      'partial.example: the reputation checks could not reach the DNSBLs',
    ]);
    expect(await page.locator('main h2').allTextContents()).toEqual([
      'This scan finished partially',
      'What changed',
      'Findings (1)',
      'Checks',
      'Log',
    ]);
    await page.getByText(/A check that did not complete resolves nothing/).waitFor();
    await browser.audit('scan-partial');
  });

  it('says why a 12-target scan failed in one line per cause, grouped by target, with the details collapsed', async () => {
    runner.behaviour = async (input) => {
      if (input.target === 'plain.example') return { findings: [], errors: ['not a TLS record (first bytes 485454502f, text "HTTP/")'] };
      throw new Error(`connect ECONNREFUSED 192.0.2.${input.target.length}:25`);
    };
    const targets = Array.from({ length: 11 }, (_, index) => `mx${index}.example`);
    const created = await service.call('/api/scans/', {
      method: 'POST',
      token: await service.token('local'),
      body: { scan_type: 'email_security', target: targets[0], targets: [...targets.slice(1), 'plain.example'] },
    });
    await service.runtime.drain();
    await page.goto(`${service.runtime.url}/scans/${created.body.id}`);
    await page.getByRole('heading', { name: /This scan (failed|finished partially)/ }).waitFor();

    const why = page.getByRole('list', { name: 'Why' });
    expect(await why.locator('summary').allTextContents()).toEqual([
      '11 of 12 targets refused the connection (nothing listens on that port)',
      'plain.example answered plain HTTP, not TLS',
    ]);
    // Collapsed: the scanner's messages are there to open, not in the reader's way.
    const details = why.locator('details').first();
    expect(await details.evaluate((element: any) => element.open as boolean)).toBe(false);
    await details.locator('summary').click();
    await details.getByText('connect ECONNREFUSED 192.0.2.11:25').first().waitFor();
    expect(await details.textContent()).toContain('mx0.example, mx1.example');
    await browser.audit('scan-failure-groups');
  });

  it('shows a clean result only for a scan that succeeded', async () => {
    const passed = { id: 'mailscan.spf.missing', title: 'SPF record present', status: 'pass' as const, detail: '' };
    await scanPage('clean.example', async () => ({ findings: [], checks: [passed], summary: { score: 96, grade: 'A' } }));
    await page.getByText('Every check of this scan ran and found nothing to report.').waitFor();
    expect(await page.getByRole('heading', { name: /This scan (failed|finished partially)/ }).count()).toBe(0);
  });

  it('claims no more than the checks say when a succeeded scan found nothing', async () => {
    await scanPage('unlisted.example', async () => ({ findings: [] }));
    await page.getByText('The scanner reported nothing. It does not list the checks it ran').waitFor();
    expect(await page.getByText('Every check of this scan ran').count()).toBe(0);

    const errored = { id: 'mailscan.dkim.not_found', title: 'DKIM key found', status: 'error' as const, detail: 'the DNS query timed out' };
    await scanPage('errored.example', async () => ({ findings: [], checks: [errored] }));
    await page.getByText('Nothing found by the checks that completed; some checks ended in an error').waitFor();
    expect(await page.getByText('Every check of this scan ran').count()).toBe(0);
  });

  it('lists findings most severe first, colours the grade by band, shows evidence as fields and the record to publish', async () => {
    await scanPage('grades.example', async () => ({
      findings: [
        finding(1, { severity: 'medium', title: 'Medium one' }),
        finding(2, { severity: 'low', title: 'Low one' }),
        finding(3, { severity: 'medium', title: 'Medium two' }),
        finding(4, {
          rule_id: 'mailscan.dmarc.missing',
          severity: 'high',
          title: 'No DMARC record',
          evidence: { domain: 'grades.example', organizational_domain: 'grades.example', probed: ['_dmarc.grades.example'] },
        }),
        finding(5, { severity: 'critical', title: 'Critical one', evidence: { listing: { list: 'zen', codes: ['127.0.0.2'] } } }),
      ],
      summary: { score: 31, grade: 'F' },
    }));
    await page.getByRole('heading', { name: 'Critical one' }).waitFor();
    const titles = await page.locator('.finding-title').allTextContents();
    expect(titles).toEqual(['Critical one', 'No DMARC record', 'Medium one', 'Medium two', 'Low one']);

    const dmarc = page.getByRole('article', { name: 'No DMARC record' });
    const evidence = dmarc.getByRole('group', { name: 'Evidence' });
    expect(await evidence.locator('dt').allTextContents()).toEqual(['Domain', 'Organizational domain', 'Probed']);
    expect(await evidence.locator('dd').allTextContents()).toEqual(['grades.example', 'grades.example', '_dmarc.grades.example']);
    const json = dmarc.getByLabel('Evidence of No DMARC record as JSON');
    expect(await json.isVisible()).toBe(false);
    await dmarc.getByText('Evidence as JSON').click();
    expect(JSON.parse((await json.textContent())!)).toMatchObject({ domain: 'grades.example' });
    const record = dmarc.getByRole('group', { name: 'DNS record to publish' });
    expect(await record.locator('dd').allTextContents()).toEqual([
      '_dmarc.grades.example',
      'TXT',
      'v=DMARC1; p=none; rua=mailto:dmarc-reports@grades.example',
    ]);
    expect(await page.getByRole('group', { name: 'DNS record to publish' }).count()).toBe(1);
    const nested = page.getByRole('article', { name: 'Critical one' }).getByRole('group', { name: 'Evidence' });
    expect(await nested.locator('dt').allTextContents()).toEqual(['Listing', 'List', 'Codes']);

    const failing = await page.locator('.score-grade').evaluate((node: any) => (globalThis as any).getComputedStyle(node).backgroundColor);
    await page.getByLabel('Mail posture grade F').waitFor();
    await browser.audit('scan-findings');
    await scanPage('a-grade.example', async () => ({ findings: [], summary: { score: 95, grade: 'A' } }));
    await page.getByLabel('Mail posture grade A').waitFor();
    const passing = await page.locator('.score-grade').evaluate((node: any) => (globalThis as any).getComputedStyle(node).backgroundColor);
    expect(passing).not.toBe(failing);
  });

  it("says a scan that does not exist, or is another tenant's, does not exist", async () => {
    await page.goto(`${service.runtime.url}/scans/scan_01JZZZZZZZZZZZZZZZZZZZZZZZ`);
    await page.getByRole('heading', { name: 'Scan not found' }).waitFor();
    expect(await page.locator('main').textContent()).not.toContain('Could not load this');
    await browser.audit('scan-not-found');

    const theirs = await scanPage('other.example', async () => ({ findings: [finding(1)] }), 'other');
    await page.goto(`${service.runtime.url}/scans/${theirs}`);
    await page.getByRole('heading', { name: 'Scan not found' }).waitFor();
    expect(await page.locator('main').textContent()).not.toContain('other.example');
  });

  it('says a page that does not exist does not exist, and where to go', async () => {
    await page.goto(`${service.runtime.url}/scans`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).waitFor();
    await page.evaluate(() => {
      (globalThis as any).history.pushState(null, '', '/nope');
      (globalThis as any).dispatchEvent(new (globalThis as any).PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('There is no page at /nope.');
    await browser.audit('page-not-found');
  });

  it('saw no Content-Security-Policy violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
