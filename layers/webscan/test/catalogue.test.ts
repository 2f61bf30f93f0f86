/**
 * The catalogue against DESIGN §17's table (ids and severities exactly), the rule metadata of
 * DESIGN §11, and the built executable's `rules` and `--version`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cachedEngineBuild } from '../../../test/helpers/engine-build-cache.ts';
import manifest from '../manifest.ts';
import { WEB_RULE_IDS, catalogue } from '../src/index.ts';

const run = promisify(execFile);

/** DESIGN §17's table, transcribed: rule id → severity. */
const DESIGN_17: Record<string, string> = {
  'web.headers.csp_missing': 'medium',
  'web.headers.csp_weak': 'medium',
  'web.headers.clickjacking': 'medium',
  'web.headers.nosniff_missing': 'low',
  'web.headers.referrer_policy_missing': 'low',
  'web.headers.hsts_missing': 'medium',
  'web.cookie.no_secure': 'medium',
  'web.cookie.no_httponly': 'low',
  'web.cookie.no_samesite': 'low',
  'web.disclosure.version_header': 'low',
  'web.disclosure.debug_error': 'medium',
  'web.disclosure.private_ip': 'low',
  'web.transport.http_only': 'medium',
  'web.transport.mixed_content': 'medium',
  'web.cors.permissive': 'high',
  'web.exposure.vcs': 'high',
  'web.exposure.env_file': 'high, critical when a secret rule matches',
  'web.exposure.backup_or_config': 'high',
  'web.exposure.directory_listing': 'medium',
  'web.exposure.status_page': 'medium',
  'web.methods.trace': 'low',
  'web.methods.unsafe_allowed': 'medium',
  'web.js.vulnerable_library': 'from CVSS',
  'web.sri.missing': 'low',
  'web.redirect.open': 'medium',
  'web.xss.reflected_marker': 'medium',
};

function severityText(rule: (typeof catalogue)[number]): string {
  if (rule.rule_id === 'web.exposure.env_file')
    return rule.severities?.join() === 'critical,high' && rule.computed_severity ? DESIGN_17[rule.rule_id] : '?';
  if (rule.computed_severity) return 'from CVSS';
  return rule.severity;
}

describe("webscan's catalogue", () => {
  it('holds every rule of DESIGN §17 with its exact id and severity, and nothing else', () => {
    expect(Object.fromEntries(catalogue.map((rule) => [rule.rule_id, severityText(rule)]))).toEqual(DESIGN_17);
    expect(catalogue.map((rule) => rule.rule_id)).toEqual([...WEB_RULE_IDS]);
  });

  it('carries references, tags, a CWE id and a confidence on every rule', () => {
    for (const rule of catalogue) {
      expect(rule.references.length, rule.rule_id).toBeGreaterThan(0);
      for (const reference of rule.references) expect(reference).toMatch(/^https:\/\//);
      expect(rule.tags.length, rule.rule_id).toBeGreaterThan(0);
      expect(rule.cwe, rule.rule_id).toMatch(/^CWE-\d+$/);
      expect(['high', 'medium', 'low']).toContain(rule.confidence);
      expect(rule.rule_id).toMatch(/^web\.[a-z]+\.[a-z_]+$/);
    }
  });

  it('is what the manifest lists, and what the built executable prints', async () => {
    expect(manifest.catalogue()).toBe(catalogue);
    expect(manifest.scope().safeParse({ max_pages: 2001 }).success).toBe(false);
    const bin = await cachedEngineBuild('webscan');
    const rules = await run(process.execPath, [bin, 'rules']);
    expect(JSON.parse(rules.stdout)).toEqual({
      scanner: { name: 'webscan', version: '0.1.0' },
      rules: JSON.parse(JSON.stringify(catalogue)) as unknown,
    });
    expect((await run(process.execPath, [bin, '--version'])).stdout).toBe('webscan 0.1.0\n');
  });
});
