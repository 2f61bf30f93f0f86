import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseScanPrompt } from '../../shared/chat/scan-prompt.ts';
import { engineViews } from '../../shared/domain/engine-views.ts';
import { checkScope } from '../../shared/domain/scope.ts';
import type { ScanType } from '../../shared/domain/scan-types.ts';
import { fieldSentence } from '../../web/src/field-errors.ts';
import {
  draftOf,
  optionsFromWords,
  scopeErrorOf,
  labelOf,
  scopeFieldsOf,
  scopeFromDraft,
  scopeSummary,
  type ScopeField,
} from '../../web/src/scope-schema.ts';

// The generic options form (web/src/scope-schema.ts, scope-form.tsx) on the real scope schemas, as
// GET /api/scan-types/ serves them (shared/domain/engine-views.ts): every field rendered, a scope
// round-tripped through the form's text, and the browser's refusals worded as the API's.
const views = engineViews();
// As the UI asks: an engine's artifact fields (email_security's rua, header) are file pickers, not typed.
const fieldsOf = (scanType: string): ScopeField[] =>
  scopeFieldsOf(views[scanType].scope_schema, Object.keys(views[scanType].artifact_fields));
const apiIssues = (scanType: string, scope: Record<string, unknown>) =>
  checkScope(scanType as ScanType, scope, { allowLegacyKeys: false }).map(({ field, message }) => ({ field, message }));
// The component is JSX, which the root tsconfig does not compile: imported by a path tsc does not follow.
const FORM_MODULE = '../../web/src/scope-form.tsx';
const { ScopeFields } = (await import(FORM_MODULE)) as { ScopeFields: (props: Record<string, unknown>) => ReactElement };
const render = (fields: ScopeField[], draft = draftOf(fields), errorOf = (_: string): string | undefined => undefined) =>
  renderToStaticMarkup(createElement(ScopeFields, { fields, draft, onChange: () => undefined, errorOf, idPrefix: 't' }));

describe('the options form from a scope schema', () => {
  it("renders every option of every engine's schema, with a label, except those the API refuses from a user", () => {
    for (const [scanType, view] of Object.entries(views)) {
      const properties = Object.keys((view.scope_schema as { properties: object }).properties);
      const fields = fieldsOf(scanType);
      expect(
        fields.map((field) => field.key),
        scanType,
      ).toEqual(properties.filter((key) => key !== 'techniques' && !(key in view.artifact_fields)));
      const html = render(fields);
      for (const field of fields) {
        expect(html, `${scanType}.${field.key}`).toContain(`id="t-scope-${field.key}"`);
        // A label names the control; an enum's checkboxes and a list's rows are a group named by its legend.
        if (field.kind === 'choices' || field.kind === 'rows')
          expect(html, `${scanType}.${field.key}`).toContain(`<legend>${field.label}</legend>`);
        else expect(html, `${scanType}.${field.key}`).toContain(`for="t-scope-${field.key}"`);
      }
    }
  });

  it('picks a control per schema shape, with descriptions and bounds as hints', () => {
    const byKey = (scanType: string) => new Map(fieldsOf(scanType).map((field) => [field.key, field]));
    const vapt = byKey('vapt');
    expect(vapt.get('ports')).toMatchObject({ kind: 'string', multiline: false, label: 'Ports', default: 'top100' });
    expect(vapt.get('rate')).toMatchObject({ kind: 'number', integer: true, min: 1, max: 5000, default: 200 });
    expect(vapt.get('rate')!.hint).toBe('From 1 to 5000. Default 200.');
    expect(vapt.get('connect_timeout_ms')!.label).toBe('Connect timeout (ms)');
    const ssl = byKey('ssl');
    expect(ssl.get('starttls')).toMatchObject({ kind: 'enum', label: 'STARTTLS', options: ['smtp', 'imap', 'pop3', 'rdp', 'none'] });
    // No default in the schema: Default/Yes/No, so an edit never turns "unset" into "off".
    expect(ssl.get('http')).toMatchObject({ kind: 'boolean', label: 'HTTP', default: undefined });
    expect(ssl.get('extra_roots')).toMatchObject({ kind: 'string', multiline: true });
    const secrets = byKey('secret_scan');
    expect(secrets.get('paths_ignore')).toMatchObject({ kind: 'list', maxItems: 200 });
    expect(secrets.get('branch')!.hint).toBe("The branch to scan; default the remote's default branch.");
    // A list of flat records is a row per record, a control per column; any other object a JSON text area, labelled so.
    expect(byKey('sbom').get('ignore')).toMatchObject({
      kind: 'rows',
      maxItems: 500,
      columns: [
        { key: 'id', label: 'ID', kind: 'string', required: true },
        { key: 'reason', label: 'Reason', kind: 'string', required: true },
        { key: 'until', label: 'Until', kind: 'string', required: false },
      ],
    });
    expect(byKey('dast').get('ignore')).toMatchObject({
      kind: 'rows',
      columns: [{ key: 'rule_id', kind: 'enum' }, { key: 'path' }, { key: 'reason' }],
    });
    expect(byKey('ai_red_team').get('tools')).toMatchObject({
      kind: 'rows',
      columns: [
        { key: 'name', kind: 'string', required: true },
        { key: 'forbidden', kind: 'boolean', required: true },
      ],
    });
    expect(byKey('ai_red_team').get('request_template')).toMatchObject({ kind: 'json' });
    expect(render([byKey('ai_red_team').get('request_template')!])).toContain('Request template (JSON)');
    // A list of an enum's values is a checkbox per value, sent in the schema's order.
    const families = byKey('ai_red_team').get('families')!;
    expect(families).toMatchObject({ kind: 'choices', minItems: 1 });
    expect(render([families])).toContain('<label for="t-scope-families-prompt_injection">Prompt injection</label>');
    expect(scopeFromDraft([families], { families: 'system_prompt\nendpoint' }).scope).toEqual({ families: ['endpoint', 'system_prompt'] });
    expect(scopeFromDraft([families], { families: '' }).scope).toEqual({});
    expect(byKey('ai_red_team').get('max_tokens')!.hint).toMatch(/^max_tokens asked/);
    const ports = byKey('medical').get('dicom_ports')!;
    expect(ports).toMatchObject({ kind: 'list', label: 'DICOM ports' });
    expect(scopeFromDraft([ports], { dicom_ports: '104, 11112\n4242' }).scope).toEqual({ dicom_ports: [104, 11112, 4242] });
    expect(scopeFromDraft([ports], { dicom_ports: '104, x' }).issues).toEqual([
      { field: 'scope.dicom_ports.1', message: 'must be a number' },
    ]);
    const ignore = byKey('sbom').get('ignore')!;
    expect(render([ignore])).toContain('<legend>Ignore</legend><p class="hint">None.</p>');
    const twoRows = render(
      [ignore],
      draftOf([ignore], {
        ignore: [
          { id: 'CVE-1', reason: 'r' },
          { id: 'CVE-2', reason: 's', until: '2027-01-01' },
        ],
      }),
    );
    expect(twoRows).toContain('<label for="t-scope-ignore-1-reason">Reason<span class="visually-hidden">, row 2</span></label>');
    expect(twoRows).toContain('id="t-scope-ignore-1-until"');
    expect(twoRows).toContain('value="2027-01-01"');
    expect(twoRows).toContain('aria-label="Remove row 2 of Ignore"');
    expect(twoRows).toContain('Add another row');
    expect(render([ssl.get('http')!])).toMatch(/<option value="" selected="">Default<\/option><option value="true">Yes/);
    expect(labelOf('x', { title: 'Own title' })).toBe('Own title');
  });

  it('round-trips a scope through the form and the API accepts it', () => {
    const scopes: Array<[string, Record<string, unknown>]> = [
      ['vapt', { ports: '22,6390', rate: 50, connect_timeout_ms: 800 }],
      ['vm', { ports: 'top1000' }],
      ['ssl', { starttls: 'smtp', sni: 'mail.example.com', http: false }],
      [
        'secret_scan',
        { branch: 'dev', history: false, max_commits: 5, paths_ignore: ['vendor/**', '**/*.{snap,png}'], credential: 'gitlab-ci' },
      ],
      ['sbom', { include_dev: true, license_deny: ['AGPL-3.0-only'], ignore: [{ id: 'GHSA-xxxx-yyyy-zzzz', reason: 'not reachable' }] }],
      ['sbom', { ignore: [{ id: 'CVE-2024-1', reason: 'patched in our fork', until: '2027-06-30' }] }],
      ['dast', { ignore: [{ rule_id: 'web.headers.csp_missing', path: '/static/**', reason: 'a CDN we do not run' }] }],
      [
        'ai_red_team',
        {
          api: 'openai_chat',
          tools: [
            { name: 'delete_user', forbidden: true },
            { name: 'search', forbidden: false },
          ],
        },
      ],
      ['sbom', {}],
    ];
    for (const [scanType, scope] of scopes) {
      const fields = fieldsOf(scanType);
      const back = scopeFromDraft(fields, draftOf(fields, scope));
      expect(back, scanType).toEqual({ scope, issues: [] });
      expect(apiIssues(scanType, back.scope), scanType).toEqual([]);
    }
  });

  it('leaves out what is left empty or at its default, and sends what is changed', () => {
    const fields = fieldsOf('vapt');
    expect(scopeFromDraft(fields, draftOf(fields)).scope).toEqual({});
    expect(scopeFromDraft(fields, { ...draftOf(fields), ports: ' 22,6390 ', rate: '' }).scope).toEqual({ ports: '22,6390' });
    const checkbox: ScopeField = { key: 'reputation', label: 'Reputation', kind: 'boolean', default: true };
    expect(draftOf([checkbox])).toEqual({ reputation: true });
    expect(scopeFromDraft([checkbox], { reputation: true }).scope).toEqual({});
    expect(scopeFromDraft([checkbox], { reputation: false }).scope).toEqual({ reputation: false });
  });

  it('refuses in the browser with the messages the API gives for the same values', () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['vapt', { rate: 99999, connect_timeout_ms: 50 }],
      ['vapt', { rate: 1.5 }],
      ['ssl', { sni: 'bad host!' }],
      ['ssl', { extra_roots: 'not a certificate' }],
      ['secret_scan', { branch: 'a..b', max_commits: 0, credential: '1token', paths_ignore: ['ok', 'x'.repeat(501)] }],
      ['sbom', { license_deny: ['AGPL 3'], credential: 'UPPER' }],
      ['email_security', { dkim_selectors: ['s1', 'bad!'] }],
      // A list of numbers is typed as a list and checked item by item.
      ['medical', { hl7_ports: [2575, 70000], dicom_ports: [1.5] }],
      // A list of records is checked cell by cell, at the API's path for the record.
      [
        'sbom',
        {
          ignore: [
            { id: 'CVE-1', reason: 'ok' },
            { id: '', reason: 'x'.repeat(501) },
          ],
        },
      ],
      ['dast', { ignore: [{ rule_id: 'web.headers.csp_missing', path: '/a', reason: 'x'.repeat(501) }] }],
      ['ai_red_team', { api: 'openai_chat', tools: [{ name: 'bad name!', forbidden: true }] }],
    ];
    for (const [scanType, scope] of bad) {
      const fields = fieldsOf(scanType);
      const browser = scopeFromDraft(fields, draftOf(fields, scope)).issues;
      expect(browser.length, scanType).toBeGreaterThan(0);
      expect(browser, scanType).toEqual(apiIssues(scanType, scope));
    }
  });

  it('says what the schema cannot: text that is not a number, JSON that does not parse', () => {
    const vapt = fieldsOf('vapt');
    expect(scopeFromDraft(vapt, { ...draftOf(vapt), rate: 'fast' }).issues).toEqual([{ field: 'scope.rate', message: 'must be a number' }]);
    const llm = fieldsOf('ai_red_team');
    expect(scopeFromDraft(llm, { ...draftOf(llm), api: 'openai_chat', request_template: '[{' }).issues).toEqual([
      { field: 'scope.request_template', message: 'must be valid JSON' },
    ]);
  });

  it('sends the rows of a list of records: a row left empty is dropped, an empty optional cell left out', () => {
    const sbom = fieldsOf('sbom');
    const rows = [
      { id: '', reason: '', until: '' },
      { id: ' CVE-1 ', reason: 'patched', until: '' },
      { id: '', reason: '', until: '' },
    ];
    expect(scopeFromDraft(sbom, { ...draftOf(sbom), ignore: JSON.stringify(rows) })).toEqual({
      scope: { ignore: [{ id: 'CVE-1', reason: 'patched' }] },
      issues: [],
    });
    // A row with something in it but a required cell empty: "is required", where the API would say it.
    const half = [{ id: 'CVE-1', reason: '', until: '' }];
    expect(scopeFromDraft(sbom, { ...draftOf(sbom), ignore: JSON.stringify(half) }).issues).toEqual([
      { field: 'scope.ignore.0.reason', message: 'is required' },
    ]);
    expect(apiIssues('sbom', { ignore: [{ id: 'CVE-1' }] })).toEqual([{ field: 'scope.ignore.0.reason', message: 'is required' }]);
    // A required checkbox is sent either way: a tool is forbidden or not.
    const llm = fieldsOf('ai_red_team');
    expect(
      scopeFromDraft(llm, { ...draftOf(llm), api: 'openai_chat', tools: JSON.stringify([{ name: 'search', forbidden: false }]) }).scope,
    ).toEqual({ api: 'openai_chat', tools: [{ name: 'search', forbidden: false }] });
  });

  it('words an error as a sentence under its field, the same from either side', () => {
    const fields = fieldsOf('vapt');
    const issues = scopeFromDraft(fields, { ...draftOf(fields), rate: '99999' }).issues;
    const errorOf = scopeErrorOf(fields, issues);
    expect(errorOf('rate')).toBe('Rate must be at most 5000.');
    expect(errorOf('ports')).toBeUndefined();
    expect(fieldSentence('Rate', ['Too big: expected number to be <=5000'])).toBe('Rate must be at most 5000.');
    const html = render(fields, draftOf(fields), errorOf);
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('Rate must be at most 5000.');
  });

  it('reads options in words for the Ask to scan prompt, and the chat sends them', () => {
    expect(optionsFromWords(fieldsOf('vapt'), 'scan ports 22,6390 on   rate 50')).toEqual({ ports: '22,6390', rate: 50 });
    expect(optionsFromWords(fieldsOf('secret_scan'), 'secret scan of   Branch Dev without history credential GITLAB')).toEqual({
      branch: 'Dev',
      history: false,
      credential: 'GITLAB',
    });
    expect(optionsFromWords(fieldsOf('ssl'), 'tls scan of   starttls smtp with http')).toEqual({ starttls: 'smtp', http: true });
    expect(optionsFromWords(fieldsOf('vapt'), 'vapt scan of   daily')).toEqual({});
    const optionsIn = (scanType: string, words: string) => optionsFromWords(fieldsOf(scanType), words);
    const result = parseScanPrompt('scan ports 22,6390 on 10.0.0.5', { policy: { allowPrivate: true }, optionsIn });
    expect(result).toMatchObject({
      kind: 'request',
      request: { path: '/api/scans/', body: { scan_type: 'vapt', target: '10.0.0.5', scope: { ports: '22,6390' } } },
    });
    const secret = parseScanPrompt('secret scan of https://git.example.com/org/repo.git branch dev without history daily', { optionsIn });
    expect(secret).toMatchObject({
      kind: 'request',
      request: {
        path: '/api/scans/schedules/',
        body: { scan_type: 'secret_scan', cadence: 'daily', scope: { branch: 'dev', history: false } },
      },
    });
  });

  it("sums a scope up in one line, in the form's words", () => {
    expect(scopeSummary({})).toBe('Default options');
    const secrets = views.secret_scan.scope_schema;
    expect(scopeSummary({ ports: '22,6390', rate: 50, connect_timeout_ms: 800 }, views.vapt.scope_schema)).toBe(
      'Ports: 22,6390 · Rate: 50 · Connect timeout (ms): 800',
    );
    expect(scopeSummary({ history: false, paths_ignore: ['a/**', 'b'] }, secrets)).toBe('History: off · Paths ignore: a/**, b');
    const mail = views.email_security;
    expect(
      scopeSummary(
        { reputation: false, dkim_selectors: ['s1', 'google'], rua: ['art_1', 'art_2'], header: 'art_3' },
        mail.scope_schema,
        mail.artifact_fields,
      ),
    ).toBe('Reputation: off · DMARC aggregate reports: 2 files · Message (.eml): 1 file · DKIM selectors: s1, google');
    expect(scopeSummary({ ignore: [{ id: 'CVE-1' }], openapi: 'https://x/openapi.json' }, views.dast.scope_schema)).toBe(
      'Ignore: 1 entry · OpenAPI: https://x/openapi.json',
    );
    expect(scopeSummary({ max_key_age_days: 90 }, views.nhi.scope_schema)).toBe('Max key age (days): 90');
    // An enum's value in words; a typed text as typed.
    expect(scopeSummary({ api: 'openai_chat', model: 'gpt_4' }, views.ai_red_team.scope_schema)).toBe('API: OpenAI chat · Model: gpt_4');
    expect(scopeSummary({ starttls: 'smtp' }, views.ssl.scope_schema)).toBe('STARTTLS: smtp');
    expect(scopeSummary({ source_legacy_model: 'x', techniques: ['T1598'] })).toBe('Default options');
  });

  it("renders email_security's options as the other engines' (checkboxes by the schema's defaults), its selectors split on commas", () => {
    const fields = fieldsOf('email_security');
    expect(fields.map((field) => [field.key, field.kind, field.label])).toEqual([
      ['reputation', 'boolean', 'Reputation'],
      ['discover', 'boolean', 'Discover'],
      ['leak', 'boolean', 'Leak'],
      ['dkim_selectors', 'list', 'DKIM selectors'],
    ]);
    const draft = draftOf(fields);
    expect(draft).toMatchObject({ reputation: true, discover: false, leak: false });
    expect(scopeFromDraft(fields, draft).scope).toEqual({});
    expect(scopeFromDraft(fields, { ...draft, reputation: false, dkim_selectors: 's1, google\nx' }).scope).toEqual({
      reputation: false,
      dkim_selectors: ['s1', 'google', 'x'],
    });
    const refused = scopeFromDraft(fields, { ...draft, dkim_selectors: 's1, bad!' }).issues;
    expect(scopeErrorOf(fields, refused)('dkim_selectors')).toBe(
      'DKIM selectors include "bad!", which is not a selector (letters, digits and ._- only).',
    );
    expect(apiIssues('email_security', { dkim_selectors: ['s1', 'bad!'] }).map((issue) => issue.message)).toEqual(
      refused.map((issue) => issue.message),
    );
    // Globs may hold commas ("**/*.{snap,png}"): a list of them splits on lines only.
    expect(fieldsOf('secret_scan').find((field) => field.key === 'paths_ignore')!.hint).toMatch(/One per line, at most 200/);
  });
});
