/**
 * The catalogue against DESIGN §19's table (ids and severities exactly), the rule metadata of
 * DESIGN §11, the scope's refusals, and the built executable's `rules` and `--version`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cachedEngineBuild } from '../../../test/helpers/engine-build-cache.ts';
import manifest from '../manifest.ts';
import { M365_RULE_IDS, M365Scope, catalogue } from '../src/index.ts';

const run = promisify(execFile);

/** DESIGN §19's table, transcribed: rule id → severity. */
const DESIGN_19: Record<string, string> = {
  'm365.tenant.detected': 'info',
  'm365.spf.no_eop_include': 'medium',
  'm365.dkim.not_enabled': 'medium',
  'm365.mta_sts.missing': 'low',
  'm365.mta_sts.mx_mismatch': 'medium',
  'm365.dns.dangling_cname': 'high',
  'm365.seamless_sso.enabled': 'low',
  'm365.adfs.idp_initiated_signon': 'medium',
  'm365.adfs.legacy_endpoint': 'medium',
  'm365.adfs.signing_cert_expiring': 'medium (high when expired)',
  'm365.exchange_onprem.exposed': 'medium',
};

describe("m365scan's catalogue", () => {
  it('holds every rule of DESIGN §19 with its exact id and severity, and nothing else', () => {
    const severityText = (rule: (typeof catalogue)[number]): string =>
      rule.computed_severity ? (rule.severities?.join() === 'high,medium' ? `${rule.severity} (high when expired)` : '?') : rule.severity;
    expect(Object.fromEntries(catalogue.map((rule) => [rule.rule_id, severityText(rule)]))).toEqual(DESIGN_19);
    expect(catalogue.map((rule) => rule.rule_id)).toEqual([...M365_RULE_IDS]);
  });

  it('carries references, tags and a confidence on every rule, and a CWE where a weakness applies', () => {
    for (const rule of catalogue) {
      expect(rule.references.length, rule.rule_id).toBeGreaterThan(0);
      for (const reference of rule.references) expect(reference, rule.rule_id).toMatch(/^https:\/\//);
      expect(rule.tags.length, rule.rule_id).toBeGreaterThan(0);
      expect(['high', 'medium', 'low'], rule.rule_id).toContain(rule.confidence);
      if (rule.rule_id !== 'm365.tenant.detected') expect(rule.cwe, rule.rule_id).toMatch(/^CWE-\d+$/);
      expect(rule.description.length, rule.rule_id).toBeGreaterThan(40);
      expect(rule.remediation.length, rule.rule_id).toBeGreaterThan(20);
    }
  });

  it('has a scope with no endpoint in it, refusing unknown fields and bad domains', () => {
    expect(M365Scope.safeParse({ extra_domains: ['contoso.com'], adfs: false, dkim_selectors: ['selector1'] }).success).toBe(true);
    expect(M365Scope.safeParse({ login_url: 'https://evil.example/' }).success).toBe(false);
    expect(M365Scope.safeParse({ extra_domains: ['https://contoso.com/'] }).success).toBe(false);
    expect(M365Scope.safeParse({ dkim_selectors: ['bad selector'] }).success).toBe(false);
    expect(manifest).toMatchObject({
      name: 'm365scan',
      scanTypes: ['m365'],
      settingsPrefix: 'M365SCAN_',
      targetKind: 'domain',
      doc: 'docs/m365scan.md',
    });
  });

  it('prints the catalogue and its version from the built executable', async () => {
    const bin = await cachedEngineBuild('m365scan');
    const rules = JSON.parse((await run(process.execPath, [bin, 'rules'])).stdout) as {
      scanner: { name: string };
      rules: { rule_id: string }[];
    };
    expect(rules.scanner.name).toBe('m365scan');
    expect(rules.rules.map((rule) => rule.rule_id)).toEqual([...M365_RULE_IDS]);
    expect((await run(process.execPath, [bin, '--version'])).stdout.trim()).toMatch(/^m365scan \d+\.\d+\.\d+$/);
    // A setting that is not an https:// endpoint stops the scan before it asks anything (exit 3); a URL is not a target (exit 2).
    const exit = (args: string[], env: Record<string, string>) =>
      run(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    const http = await exit(['scan', 'contoso.test'], { M365SCAN_LOGIN_URL: 'http://login.example/' });
    expect(http.code).toBe(3);
    expect(http.stderr).toContain('M365SCAN_LOGIN_URL must be an https:// URL');
    expect((await exit(['scan', 'https://contoso.test/'], {})).code).toBe(2);
  }, 60_000);
});
