import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { MANIFESTS } from '../../layers/manifests.ts';
import { engineViews } from '../../shared/domain/engine-views.ts';
import type { ScanType } from '../../shared/domain/scan-types.ts';
import { draftOf, rowsOf, scopeFieldsOf, scopeSummary, type ScopeField } from '../../web/src/scope-schema.ts';
import { ScriptedRunner } from '../helpers/test-runners.ts';
import type { TestService } from '../helpers/local-service.ts';
import { available, startSignedIn, type Browser } from './browser.ts';

// Issue 41, item 1: a form test per engine. For every scan type a manifest runs, the launcher tile
// and the schedule form render each field of its scope schema (GET /api/scan-types/), and a scope
// goes through Create schedule, comes back in the edit dialog, is changed there and saved: what
// the API stores is what was typed, and the row says it in words. One browser, one service.
const views = engineViews();
const SCAN_TYPES = MANIFESTS.flatMap((manifest) => manifest.scanTypes) as ScanType[];

/** Per scan type: a target, the scope created, and the scope it is edited to (every other option back to its default). */
const CASES: Record<string, { target: string; created: Record<string, unknown>; edited: Record<string, unknown> }> = {
  email_security: {
    target: 'example.com',
    created: { reputation: false, discover: true, dkim_selectors: ['s1', 'google'] },
    edited: { leak: true, dkim_selectors: ['selector1'] },
  },
  ssl: {
    target: 'www.example.com:443',
    created: { starttls: 'smtp', sni: 'mail.example.com', http: false },
    edited: { starttls: 'imap' },
  },
  vapt: { target: '127.0.0.1', created: { ports: '22,6390', rate: 50, connect_timeout_ms: 800 }, edited: { ports: 'top1000' } },
  vm: { target: 'db.example.com', created: { ports: 'top1000' }, edited: { rate: 100 } },
  secret_scan: {
    target: 'https://git.example.com/repo.git',
    created: { branch: 'dev', history: false, max_commits: 5, paths_ignore: ['vendor/**', '**/*.{snap,png}'], credential: 'repo-bot' },
    edited: { branch: 'main', history: true },
  },
  sbom: {
    target: 'https://git.example.com/org/app.git',
    created: {
      branch: 'release',
      include_dev: true,
      license_deny: ['AGPL-3.0-only'],
      ignore: [{ id: 'GHSA-xxxx-yyyy-zzzz', reason: 'not reachable' }],
      credential: 'repo-bot',
    },
    edited: { include_dev: false },
  },
  // No credential: webscan's build refuses one today ("not supported by this build of webscan yet").
  dast: {
    target: 'https://app.example.com/',
    created: {
      max_pages: 50,
      max_depth: 3,
      rate: 2.5,
      include_paths: ['/app/**'],
      exclude_paths: ['/logout'],
      active: true,
    },
    edited: { max_pages: 10, ignore: [{ rule_id: 'web.headers.csp_missing', path: '/static/**', reason: 'a CDN we do not run' }] },
  },
  ai_red_team: {
    target: 'https://llm.example.com/v1/chat/completions',
    created: {
      api: 'openai_chat',
      model: 'gpt-4o-mini',
      stream: false,
      credential: 'llm-key',
      system_prompt_canary: 'CANARY-7f3a9c21',
      secret_canaries: ['FAKE-SECRET-0001'],
      tools: [
        { name: 'delete_user', forbidden: true },
        { name: 'search', forbidden: false },
      ],
      families: ['prompt_injection', 'system_prompt'],
      max_requests: 40,
      rate: 0.5,
      seed: 42,
    },
    edited: { api: 'openai_chat', model: 'gpt-4o', repeats: 2, tools: [{ name: 'refund', forbidden: true }] },
  },
  m365: {
    target: 'contoso.com',
    created: { adfs: false, extra_domains: ['contoso.net'] },
    edited: { dkim_selectors: ['selector1', 'selector2'] },
  },
  medical: {
    target: 'pacs.example.org:11112',
    created: { dicom_ports: [104, 11112], called_ae: ['ORTHANC'], fhir_bases: ['/fhir/R4'], connect_timeout_ms: 2000 },
    edited: { hl7_ports: [2575, 2576], dicomweb_bases: ['/dicom-web'] },
  },
  nhi: { target: 'release-bot', created: { max_key_age_days: 90, new_key_grace_days: 3 }, edited: { expiry_warning_days: 14 } },
  vdi: { target: 'desktop.example.com', created: { ports: '3389,5900-5903', rdp_tls: false }, edited: { ports: '3389', rdp_tls: true } },
};

const fieldsOf = (scanType: string): ScopeField[] =>
  scopeFieldsOf(views[scanType].scope_schema, Object.keys(views[scanType].artifact_fields));

describe.skipIf(!available)('every engine’s options, from its scope schema, in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ service, browser, page } = await startSignedIn(new Map(SCAN_TYPES.map((type) => [type, new ScriptedRunner()] as const)), {
      allowLoopbackTargets: true,
    }));
    // The credentials the cases pick (a `credential` option, nhi's target), one per kind.
    const token = await service.token('local');
    const credentials = [
      {
        alias: 'repo-bot',
        kind: 'git_token',
        secret: { token: 'e2eGitToken00000000000000000000000000001' },
        allowed_hosts: ['git.example.com'],
      },
      { alias: 'llm-key', kind: 'llm_api_key', secret: { token: 'sk-e2e0000000000000000000000001' }, allowed_hosts: ['llm.example.com'] },
      { alias: 'release-bot', kind: 'github_token', secret: { token: 'ghp_e2eNhiToken0000000000000000000000044' } },
    ];
    for (const body of credentials) {
      const reply = await service.call('/api/credentials/', { method: 'POST', token, body });
      expect(reply.status, body.alias).toBe(201);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.runtime.url}${path}`;
  const api = async (path: string) => (await service.call(path, { token: await service.token('local') })).body;

  /** Sends the dialog; a refusal fails the test with the messages the form shows. */
  async function submit(dialog: Locator, button: string): Promise<void> {
    await dialog.getByRole('button', { name: button }).click();
    const refused = dialog.locator('.field-error, .form-error').first();
    await Promise.race([dialog.waitFor({ state: 'detached' }), refused.waitFor()]);
    if ((await dialog.count()) > 0) expect(await dialog.locator('.field-error, .form-error').allTextContents()).toEqual([]);
  }

  it('has a case for every scan type a manifest runs', () => {
    expect(SCAN_TYPES.filter((type) => !(type in CASES))).toEqual([]);
  });

  /** Sets every option of the form to `scope` (an option it does not name goes back to empty or its default). */
  async function fill(form: Locator, prefix: string, fields: ScopeField[], scope: Record<string, unknown>): Promise<void> {
    const draft = draftOf(fields, scope);
    for (const field of fields) {
      const control = form.locator(`#${prefix}-scope-${field.key}`);
      const value = draft[field.key];
      if (field.kind === 'choices') {
        const checked = String(value).split('\n');
        for (const option of field.options)
          await control.locator(`#${prefix}-scope-${field.key}-${option}`).setChecked(checked.includes(option));
      } else if (field.kind === 'rows') {
        // Rows as a user makes them: remove what is there, then Add a row and fill it, per record.
        const remove = control.getByRole('button', { name: /^Remove row 1 of/ });
        while ((await remove.count()) > 0) await remove.click();
        for (const [index, row] of rowsOf(value).entries()) {
          await control.locator(`#${prefix}-scope-${field.key}-add`).click();
          for (const column of field.columns) {
            const cell = control.locator(`#${prefix}-scope-${field.key}-${index}-${column.key}`);
            const text = row[column.key];
            if (typeof text === 'boolean') await cell.setChecked(text);
            else if (column.kind === 'enum') await cell.selectOption(text);
            else await cell.fill(text);
          }
        }
      } else if (typeof value === 'boolean') await control.setChecked(value);
      else if (field.kind === 'boolean' || field.kind === 'enum' || field.key === 'credential') await control.selectOption(value);
      else await control.fill(value);
    }
  }

  /** The form shows `scope`: each control holds its text, each checkbox its state. */
  async function expectShown(form: Locator, prefix: string, fields: ScopeField[], scope: Record<string, unknown>): Promise<void> {
    const draft = draftOf(fields, scope);
    for (const field of fields) {
      const control = form.locator(`#${prefix}-scope-${field.key}`);
      const value = draft[field.key];
      if (field.kind === 'choices') {
        const checked = String(value).split('\n');
        for (const option of field.options)
          expect(await control.locator(`#${prefix}-scope-${field.key}-${option}`).isChecked(), option).toBe(checked.includes(option));
      } else if (field.kind === 'rows') {
        const rows = rowsOf(value);
        expect(await control.getByRole('button', { name: /^Remove row/ }).count(), field.key).toBe(rows.length);
        for (const [index, row] of rows.entries())
          for (const column of field.columns) {
            const cell = control.locator(`#${prefix}-scope-${field.key}-${index}-${column.key}`);
            const text = row[column.key];
            if (typeof text === 'boolean') expect(await cell.isChecked(), `${field.key}.${index}.${column.key}`).toBe(text);
            else expect(await cell.inputValue(), `${field.key}.${index}.${column.key}`).toBe(text);
          }
      } else if (typeof value === 'boolean') expect(await control.isChecked(), field.key).toBe(value);
      else expect(await control.inputValue(), field.key).toBe(value);
    }
  }

  it.each(Object.keys(CASES))('%s: renders every option and round-trips a scope through create and edit', async (scanType) => {
    const { target, created, edited } = CASES[scanType];
    const fields = fieldsOf(scanType);
    const label = (await api('/api/scan-types/')).items.find((item: { value: string }) => item.value === scanType).label as string;

    // The launcher tile renders the same options, each with its label, and the engine's file pickers.
    await page.goto(url('/'));
    const tile = page
      .getByRole('region', { name: 'Launch a scan' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: label, exact: true }) });
    await tile.getByRole('button', { name: 'Scan a target' }).click();
    for (const field of fields) {
      const control = tile.locator(`#tile-${scanType}-scope-${field.key}`);
      expect(await control.count(), field.key).toBe(1);
      // A label names the control; a group of checkboxes (an enum's values) is named by its legend.
      const name =
        field.kind === 'choices' || field.kind === 'rows'
          ? control.locator('legend')
          : tile.locator(`label[for="tile-${scanType}-scope-${field.key}"]`);
      expect(await name.textContent(), field.key).toContain(field.label);
    }
    for (const key of Object.keys(views[scanType].artifact_fields))
      expect(await tile.locator(`#tile-${scanType}-${key}[type=file]`).count()).toBe(1);

    // Create: every option typed, then what the API stored is the scope.
    await page.goto(url('/settings/scheduled-scans'));
    await page.getByRole('button', { name: 'New schedule' }).click();
    const dialog = page.getByRole('dialog');
    const name = `Options of ${scanType}`;
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Scan type').selectOption(scanType);
    const targetControl = dialog.locator('#f-target');
    if ((await dialog.locator('select#f-target').count()) === 1) await targetControl.selectOption(target);
    else await targetControl.fill(target);
    for (const field of fields) expect(await dialog.locator(`#f-scope-${field.key}`).count(), field.key).toBe(1);
    await fill(dialog, 'f', fields, created);
    if (scanType === 'email_security' || scanType === 'ai_red_team') await browser.audit(`schedule-form-${scanType}`);
    await submit(dialog, 'Create schedule');
    const stored = (await api('/api/scans/schedules/')).items.find((schedule: { name: string }) => schedule.name === name);
    expect(stored.scope).toEqual(created);

    // Edit: the dialog shows it, in words and in its controls; the edited scope replaces it.
    const row = page.getByRole('row').filter({ hasText: name });
    const words = scopeSummary(created, views[scanType].scope_schema, views[scanType].artifact_fields);
    expect(await row.locator('.scope-summary-row').textContent()).toBe(words);
    await row.getByRole('button', { name: /^Edit/ }).click();
    await dialog.getByText(`Saved options: ${words}`).waitFor();
    await expectShown(dialog, 'f', fields, created);
    await fill(dialog, 'f', fields, edited);
    await submit(dialog, 'Save');
    expect((await api(`/api/scans/schedules/${stored.id}/`)).scope).toEqual(edited);
    // The row says the new options once the list is fetched again.
    await row.getByText(scopeSummary(edited, views[scanType].scope_schema, views[scanType].artifact_fields), { exact: true }).waitFor();
  });
});
