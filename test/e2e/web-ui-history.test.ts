import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunnerResult } from '../../shared/ports/scan-runner.ts';
import { finding, ScriptedRunner } from '../helpers/test-runners.ts';
import { scheduleBody, type TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// A schedule's run history and an email_security target's posture score over time (issue 24,
// item 4): seeded through the API with a scripted runner, read back from the page and the chart.
describe.skipIf(!available)('run history and the posture chart in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const runner = new ScriptedRunner();
  const manualScans: Record<string, string> = {};

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(new Map([['email_security', runner]])));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string, options: Parameters<TestService['call']>[1] = {}) =>
    service.call(path, { token: await service.token('local'), ...options });

  /** Runs the schedule now with `result` (or a thrown error) and waits for it to finish; 6 h pass between runs. */
  async function run(scheduleId: string, result: RunnerResult | Error): Promise<string> {
    runner.behaviour = async () => {
      if (result instanceof Error) throw result;
      return result;
    };
    const reply = await api(`/api/scans/schedules/${scheduleId}/run/`, { method: 'POST' });
    expect(reply.status).toBe(202);
    await service.runtime.drain();
    service.clock.advance(6 * 3600_000);
    return reply.body.scan.id as string;
  }

  it('links a schedule to its runs, newest first, with status, findings and what each changed', async () => {
    const created = await api('/api/scans/schedules/', {
      method: 'POST',
      body: scheduleBody({ name: 'Posture of history.example', target: 'history.example', cadence: 'monthly' }),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const scanIds = [
      await run(id, { findings: [finding(1), finding(2)], summary: { score: 58, grade: 'D' } }),
      await run(id, { findings: [finding(1)], summary: { score: 71, grade: 'C' } }),
      await run(id, new Error('DNS resolver timed out after 10 s')),
      await run(id, { findings: [finding(1)], errors: ['posture/dmarc: the DMARC lookup timed out'] }),
      await run(id, { findings: [finding(1), finding(3)], summary: { score: 83, grade: 'B' } }),
      await run(id, { findings: [], summary: { score: 90, grade: 'A' } }),
    ];
    // Manual scans: one of the same target (in its chart, not in the schedule's runs), one of another.
    for (const [target, score] of [
      ['History.Example', 66],
      ['other.example', 10],
    ] as const) {
      runner.behaviour = async () => ({ findings: [], summary: { score, grade: 'C' } });
      const reply = await api('/api/scans/', { method: 'POST', body: { scan_type: 'email_security', target } });
      expect(reply.status).toBe(202);
      manualScans[target] = reply.body.id as string;
      await service.runtime.drain();
      service.clock.advance(6 * 3600_000);
    }
    const scans = await Promise.all(scanIds.map(async (scanId) => (await api(`/api/scans/${scanId}/`)).body));
    expect(scans.map((scan) => scan.status)).toEqual(['succeeded', 'succeeded', 'failed', 'partial', 'succeeded', 'succeeded']);

    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('link', { name: 'Posture of history.example' }).click();
    await page.getByRole('heading', { name: 'Run history of Posture of history.example' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/settings/scheduled-scans/${id}`);

    const rows = page.getByRole('table', { name: 'Runs of this schedule, newest first' }).locator('tbody tr');
    expect(await rows.count()).toBe(6);
    const newestFirst = [...scans].reverse();
    for (const [index, scan] of newestFirst.entries()) {
      const cells = await rows.nth(index).locator('td').allTextContents();
      const [startedBy, status, score, findings, ...changes] = cells;
      expect(startedBy).toBe('Run now');
      expect(status).toBe({ succeeded: 'Succeeded', failed: 'Failed', partial: 'Partial' }[scan.status as string]);
      expect(score).toBe(scan.summary.score === undefined ? 'No score' : String(scan.summary.score));
      expect(findings).toBe(String(scan.finding_count));
      expect(changes).toEqual(
        scan.changes
          ? [scan.changes.new, scan.changes.resolved, scan.changes.reopened, scan.changes.unchanged].map(String)
          : ['—', '—', '—', '—'],
      );
      expect(await rows.nth(index).getByRole('link').getAttribute('href')).toBe(`/scans/${scan.id}`);
    }
    // The first run found both findings new.
    expect(scans[0].changes).toMatchObject({ new: 2 });
    await browser.audit('schedule-history');
  });

  it('draws the posture score over time: the seeded values, a gap for each scan without a score, never a zero', async () => {
    const chart = page.getByRole('figure', { name: 'Mail posture score of history.example' });
    await chart.waitFor();
    expect(await chart.locator('.chart-desc').textContent()).toBe(
      'Every email security scan of this target (the newest 100), by this schedule or started any other way. ' +
        '7 finished scans. Latest score 66 (grade C), up from 58; lowest 58, highest 90. 2 scans have no score (the posture check did not complete).',
    );
    // Scores read back from the drawing: each dot's height against the 0 and 100 grid lines.
    const grid = await chart.locator('.chart-grid').evaluateAll((lines: any[]) => lines.map((line) => Number(line.getAttribute('y1'))));
    const [y0, y100] = [grid[0], grid[grid.length - 1]];
    const dots = await chart
      .locator('.chart-svg circle.chart-dot')
      .evaluateAll((circles: any[]) => circles.map((c) => Number(c.getAttribute('cy'))));
    expect(dots.map((cy) => Math.round(((y0 - cy) / (y0 - y100)) * 100))).toEqual([58, 71, 83, 90, 66]);
    // Two lines, broken where the failed and the partial scan have no score; their places are marked gaps.
    expect(await chart.locator('polyline.chart-line').count()).toBe(2);
    expect(await chart.locator('line.chart-gap').count()).toBe(2);
    const labels = await chart.locator('a.chart-point').evaluateAll((links: any[]) => links.map((a) => a.getAttribute('aria-label')));
    expect(labels.map((label) => /: (.*);/.exec(label)![1])).toEqual([
      'score 58, grade D',
      'score 71, grade C',
      'no score',
      'no score',
      'score 83, grade B',
      'score 90, grade A',
      'score 66, grade C',
    ]);
    expect(labels[2]).toMatch(/scan failed$/);
    expect(labels[3]).toMatch(/scan finished partially$/);

    // The same numbers as a table, for anyone who does not read the drawing.
    await chart.getByText('Scores as a table').click();
    const table = chart.getByRole('table');
    expect(await table.locator('tbody td:first-of-type').allTextContents()).toEqual(['58', '71', 'No score', 'No score', '83', '90', '66']);

    // Every point is reachable with Tab and opens its scan with Enter.
    await page.getByRole('heading', { name: /^Run history of/ }).click();
    let focusedLabel = '';
    for (let i = 0; i < 40 && !focusedLabel.includes('score 58'); i++) {
      await page.keyboard.press('Tab');
      focusedLabel = await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? '');
    }
    expect(focusedLabel).toContain('score 58, grade D');
    await chart.locator('.chart-tip').waitFor();
    await browser.shot('posture-chart-focused');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))).toMatch(
      /no score; scan failed/,
    );
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'This scan failed' }).waitFor();
  });

  it("shows an email_security scan's page its target's score over time, itself ringed, and no chart for a first scan", async () => {
    await page.goto(url(`/scans/${manualScans['History.Example']}`));
    const chart = page.getByRole('figure', { name: 'Mail posture score of history.example over time' });
    await chart.waitFor();
    const current = chart.locator('a.chart-point[aria-current="page"]');
    expect(await current.getAttribute('aria-label')).toMatch(/score 66, grade C; scan succeeded \(this scan\)$/);
    expect(await chart.locator('a.chart-point').count()).toBe(7);
    await browser.audit('scan-posture-chart');

    await page.goto(url(`/scans/${manualScans['other.example']}`));
    await page.getByLabel('Mail posture grade C').waitFor();
    expect(await page.getByRole('figure').count()).toBe(0);
  });

  it('says a schedule that is not in this tenant does not exist', async () => {
    await page.goto(url('/settings/scheduled-scans/sch_01JZZZZZZZZZZZZZZZZZZZZZZZ'));
    await page.getByRole('heading', { name: 'Schedule not found' }).waitFor();
    await browser.audit('schedule-not-found');
  });

  it('saw no Content-Security-Policy violation', () => {
    expect(browser.cspViolations).toEqual([]);
  });
});
