import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunnerFinding } from '../../shared/domain/finding.ts';
import type { RunnerCheck } from '../../shared/ports/scan-runner.ts';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Evidence as a reader wants it (issue 41 item 4): a secret's places as a table (file, line, commit,
// date) and TLS evidence named in words, on a scan's findings and on an issue's occurrences. The
// evidence is what secretscan and tlsscan write (layers/secretscan/src/scan.ts evidenceOf,
// layers/engine-kit/src/tls/scan-endpoint.ts), played by a scripted runner through the real local runtime.

const COMMIT_A = '3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a098';
const COMMIT_B = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';

const secret: RunnerFinding = {
  rule_id: 'secret.aws_access_key',
  severity: 'critical',
  title: 'AWS secret access key',
  description:
    'AWS secret access key wJal…EKEY (40 characters) in config/deploy.env line 12 (commit 3f1c2a9b8e7d) and 1 more place; still in main.',
  evidence: {
    path: 'config/deploy.env',
    line: 12,
    commit: COMMIT_A,
    author_date: '2026-10-02T09:14:05Z',
    in_head: true,
    kind: 'AWS_SECRET_ACCESS_KEY',
    masked: 'wJal…EKEY',
    length: 40,
    sha256: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
    locations: [
      { path: 'config/deploy.env', line: 12, commit: COMMIT_A, author_date: '2026-10-02T09:14:05Z', in_head: true },
      {
        path: 'scripts/old-deploy-with-a-rather-long-name.sh',
        line: 3,
        commit: COMMIT_B,
        author_date: '2025-01-20T17:40:00Z',
        in_head: false,
      },
    ],
    locations_total: 2,
  },
  remediation: 'Revoke the key, then remove it from the history.',
};

const tls: RunnerFinding = {
  rule_id: 'tls.cipher.insecure',
  severity: 'high',
  title: 'Insecure cipher suites',
  description: 'tls.example.com:443 accepts 1 insecure suite(s) (3DES): TLS_RSA_WITH_3DES_EDE_CBC_SHA.',
  evidence: {
    endpoint: 'tls.example.com:443',
    suites_by_protocol: { 'TLS 1.2': ['TLS_RSA_WITH_3DES_EDE_CBC_SHA'] },
    categories: ['3DES'],
  },
  remediation: 'Turn off the insecure suites.',
};

const fail = (id: string): RunnerCheck => ({ id, title: id, status: 'fail', detail: '1 finding', coverage: { kind: 'target' } });

describe.skipIf(!available)('evidence in words and tables, in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const secrets = new ScriptedRunner();
  const ssl = new ScriptedRunner();

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(
      new Map([
        ['secret_scan', secrets],
        ['ssl', ssl],
      ]),
    ));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  async function scan(scan_type: string, target: string): Promise<string> {
    const created = await service.call('/api/scans/', { method: 'POST', token: await service.token('local'), body: { scan_type, target } });
    expect(created.status).toBe(202);
    await service.runtime.drain();
    return created.body.id as string;
  }

  it("shows a secret's places as a table of file, line, commit and date, on the scan and on the issue", async () => {
    secrets.behaviour = async () => ({ findings: [secret], checks: [fail(secret.rule_id)] });
    const id = await scan('secret_scan', 'https://git.example.com/org/repo.git');
    await page.goto(`${service.runtime.url}/scans/${id}`);
    const places = page.getByRole('region', { name: 'Where it was found' });
    await places.waitFor();
    expect(await places.locator('thead th').allTextContents()).toEqual(['File', 'Line', 'Commit', 'Date', 'Still in the branch tip']);
    const rows = await places
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...(tr as any).querySelectorAll('td')].map((td: any) => td.textContent as string)));
    expect(rows.map((row) => [row[0], row[1], row[2], row[4]])).toEqual([
      ['config/deploy.env', '12', COMMIT_A.slice(0, 12), 'Yes'],
      ['scripts/old-deploy-with-a-rather-long-name.sh', '3', COMMIT_B.slice(0, 12), 'No'],
    ]);
    // A date in the reader's words, not an ISO string; the whole commit in its title.
    expect(rows[0][3]).not.toContain('T09:14');
    expect(rows[0][3]).toMatch(/2026/);
    expect(await places.locator('code').first().getAttribute('title')).toBe(COMMIT_A);
    // The other fields read as words.
    const fields = page.locator('.evidence-fields dt');
    expect(await fields.allTextContents()).toEqual(
      expect.arrayContaining(['File', 'Secret (masked)', 'Fingerprint (SHA-256)', 'Places found', 'Detector']),
    );
    // The log reads in words: the scan type's name and a time limit in seconds, not wire names.
    const log = (await page.getByRole('list', { name: 'Log lines' }).textContent()) ?? '';
    expect(log).toContain('scan type=Secret Scan');
    expect(log).toMatch(/time limit=\d+ s/);
    expect(log).not.toMatch(/scan_type|timeout_ms/);
    await browser.audit('evidence-secret-scan');

    await page.goto(`${service.runtime.url}/issues`);
    await page.getByRole('link', { name: /AWS secret access key/ }).click();
    await page.getByRole('heading', { name: /AWS secret access key/, level: 1 }).waitFor();
    // The history names the scan in words, linked to it, not "system: secret_scan scan scan_…".
    const history = page.getByRole('list', { name: 'Status changes, newest first' });
    expect(await history.textContent()).toContain('Opened by a Secret Scan scan');
    expect(await history.getByRole('link', { name: 'Secret Scan scan' }).getAttribute('href')).toBe(`/scans/${id}`);
    expect(await history.textContent()).not.toContain('secret_scan');
    await page.getByText('Show evidence').click();
    await page.getByRole('region', { name: 'Where it was found' }).locator('tbody tr').nth(1).waitFor();
    await browser.audit('evidence-secret-issue');
  });

  it('names TLS evidence in words: the endpoint, the suites by protocol version and why they are insecure', async () => {
    ssl.behaviour = async () => ({ findings: [tls], checks: [fail(tls.rule_id)] });
    const id = await scan('ssl', 'tls.example.com:443');
    await page.goto(`${service.runtime.url}/scans/${id}`);
    const evidence = page.getByRole('group', { name: 'Evidence' });
    await evidence.first().waitFor();
    const labels = await evidence.first().locator('dt').allTextContents();
    expect(labels).toEqual(['Endpoint', 'Cipher suites, by protocol version', 'TLS 1.2', 'Why the suites are insecure']);
    expect(labels.join(' ')).not.toMatch(/_|Suites by protocol/);
    await browser.audit('evidence-tls');
  });
});
