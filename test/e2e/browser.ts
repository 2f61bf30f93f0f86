/**
 * The browser suites' harness: Chromium through playwright-core on a fresh profile, axe-core on the
 * page as it is (light and dark), and screenshots at desktop and phone width into test-results/ui/.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { LocalRuntimeOptions } from '../../local/runtime.ts';
import { ensureUiBuilt } from '../../local/web-ui.ts';
import type { RunnerRegistry } from '../../shared/ports/scan-runner.ts';
import { startTestService, type TestService } from '../helpers/local-service.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const available = existsSync(CHROMIUM);
if (!available) {
  console.warn(`\n*** browser suite SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium; CI installs it) ***\n`);
}

// DEVELOPERS' flags: no background traffic (the machine has no network), a fresh profile each run.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const SHOTS = join(process.cwd(), 'test-results', 'ui');
export const VIEWPORTS = { desktop: { width: 1280, height: 800 }, mobile: { width: 390, height: 844 } } as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console messages about the Content-Security-Policy: a test expects none. */
  cspViolations: string[];
  /** The names audit() ran on. */
  audited: string[];
  /** axe-core on the page as it is, in light and dark (0 serious or critical), then four screenshots of it. */
  audit(name: string): Promise<void>;
  /** One screenshot of the page as it is, desktop width, into test-results/ui/: a state audit() does not visit. */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: FLAGS,
    headless: true,
    viewport: VIEWPORTS.desktop,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Fail on the locator that did not appear, well before the test's own timeout.
  context.setDefaultTimeout(10_000);
  const cspViolations: string[] = [];
  const audited: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  mkdirSync(SHOTS, { recursive: true });
  // A modal dialog is fixed to the viewport: a full-page shot would show it floating over the page.
  const fullPageNow = async () => (await page.locator('dialog[open]').count()) === 0;

  async function audit(name: string): Promise<void> {
    await page.evaluate(axeSource);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> = await page.evaluate(
        async () => {
          const scope = globalThis as any;
          const result = await scope.axe.run(scope.document, { resultTypes: ['violations'] });
          return result.violations.map((v: any) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n: any) => ({ target: n.target })),
          }));
        },
      );
      const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
      expect(serious, `${name} (${colorScheme}): ${JSON.stringify(serious, null, 1)}`).toEqual([]);
    }
    const fullPage = await fullPageNow();
    // From the top: scrolled, a full-page shot draws the sticky top bar where the viewport was.
    if (fullPage) await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    for (const [viewport, size] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(size);
      // Nothing may widen the page past the viewport (a phone would scroll the whole page sideways).
      const pageWidth: number = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
      expect(pageWidth, `${name} at ${viewport} is wider than the viewport`).toBeLessThanOrEqual(size.width);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        await page.screenshot({ path: join(SHOTS, `${name}-${viewport}-${colorScheme}.png`), fullPage, animations: 'disabled' });
      }
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.emulateMedia({ colorScheme: 'light' });
    audited.push(name);
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: await fullPageNow() });
  }

  return {
    context,
    page,
    cspViolations,
    audited,
    audit,
    shot,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The real local runtime with `runners` (and any other `options`) serving the built UI, and a fresh
 * browser signed in through its one-time link as an admin of tenant `local`.
 */
export async function startSignedIn(
  runners: RunnerRegistry,
  options: Omit<LocalRuntimeOptions, 'uiDir' | 'runners'> = {},
): Promise<{ service: TestService; browser: Browser; page: Page }> {
  const uiDir = await ensureUiBuilt();
  const service = await startTestService({ ...options, uiDir, runners });
  const browser = await launchBrowser();
  await browser.page.goto(await service.runtime.signInUrl());
  await browser.page.getByRole('navigation', { name: 'Main' }).waitFor();
  return { service, browser, page: browser.page };
}

/** The focused element's id, else its text, else its tag name. */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (globalThis as any).document.activeElement?.id ||
      (globalThis as any).document.activeElement?.textContent?.trim() ||
      (globalThis as any).document.activeElement?.tagName,
  );
}

/** Tab (or Shift+Tab) until the focused element has this accessible name: the keyboard, nothing else. */
export async function tabToControl(page: Page, name: string | RegExp, { back = false, max = 80 } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const label: string = await page.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      if (!el) return '';
      const labelled = el.id ? (globalThis as any).document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
      return (el.getAttribute('aria-label') ?? labelled ?? el.textContent ?? '').trim();
    });
    if (typeof name === 'string' ? label === name : name.test(label)) return;
  }
  throw new Error(`no control named ${String(name)} within ${max} tabs`);
}
