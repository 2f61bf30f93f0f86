/**
 * The catalogue against DESIGN §22's table (ids and severities exactly), the rule metadata of
 * DESIGN §11, the scope's limits, the target forms, and the built executable's `rules` and `--version`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cachedEngineBuild } from '../../../test/helpers/engine-build-cache.ts';
import manifest from '../manifest.ts';
import { catalogue } from '../src/index.ts';
import { DICOM_RULE_IDS, HL7_RULE_IDS, HTTP_RULE_IDS } from '../src/catalogue.ts';
import { parseMedTarget, targetText } from '../src/target.ts';

const run = promisify(execFile);

/** DESIGN §22's table, transcribed: rule id → severity. */
const DESIGN_22: Record<string, string> = {
  'med.dicom.any_called_ae': 'high',
  'med.dicom.any_calling_ae': 'medium',
  'med.dicom.query_open': 'critical',
  'med.dicom.store_open': 'high',
  'med.dicom.cleartext': 'medium',
  'med.dicomweb.qido_unauthenticated': 'critical',
  'med.orthanc.rest_unauthenticated': 'critical',
  'med.fhir.detected': 'info',
  'med.fhir.no_security_declared': 'medium',
  'med.fhir.unauthenticated_read': 'critical',
  'med.fhir.smart_weak': 'medium',
  'med.hl7.mllp_exposed': 'high',
  'med.hl7.cleartext': 'medium',
};

describe("medscan's catalogue", () => {
  it('holds every rule of DESIGN §22 with its exact id and severity, and nothing else', () => {
    expect(Object.fromEntries(catalogue.map((rule) => [rule.rule_id, rule.severity]))).toEqual(DESIGN_22);
    expect([...DICOM_RULE_IDS, ...HTTP_RULE_IDS, ...HL7_RULE_IDS].sort()).toEqual(Object.keys(DESIGN_22).sort());
  });

  it('carries references, tags and a confidence on every rule, and a CWE id on every rule but the inventory one', () => {
    for (const rule of catalogue) {
      expect(rule.references.length, rule.rule_id).toBeGreaterThan(0);
      for (const reference of rule.references) expect(reference).toMatch(/^https:\/\//);
      expect(rule.tags.length, rule.rule_id).toBeGreaterThan(0);
      if (rule.rule_id !== 'med.fhir.detected') expect(rule.cwe, rule.rule_id).toMatch(/^CWE-\d+$/);
      expect(['high', 'medium', 'low']).toContain(rule.confidence);
      expect(rule.rule_id).toMatch(/^med\.[a-z0-9]+\.[a-z_]+$/);
    }
  });

  it('refuses a sixth called AE, an AE title with a backslash or over 16 characters, and unknown fields', () => {
    const scope = manifest.scope();
    expect(scope.safeParse({ called_ae: ['A', 'B', 'C', 'D', 'E'] }).success).toBe(true);
    expect(scope.safeParse({ called_ae: ['A', 'B', 'C', 'D', 'E', 'F'] }).success).toBe(false);
    expect(scope.safeParse({ called_ae: ['A\\B'] }).success).toBe(false);
    expect(scope.safeParse({ called_ae: ['X'.repeat(17)] }).success).toBe(false);
    expect(scope.safeParse({ called_ae: ['   '] }).success).toBe(false);
    expect(scope.safeParse({ fhir_bases: ['fhir'] }).success).toBe(false);
    expect(scope.safeParse({ guess_ae: true }).success).toBe(false);
  });

  it('reads a host, host:port, a bracketed IPv6 with a port and an http(s) URL, and refuses a URL with credentials and a CIDR', () => {
    expect(targetText(parseMedTarget('PACS.Example.org'))).toBe('pacs.example.org');
    expect(targetText(parseMedTarget('pacs.example.org:11112'))).toBe('pacs.example.org:11112');
    expect(targetText(parseMedTarget('[2001:db8::1]:104'))).toBe('[2001:db8::1]:104');
    expect(targetText(parseMedTarget('2001:db8::1'))).toBe('2001:db8::1');
    expect(targetText(parseMedTarget('https://fhir.example.org/fhir'))).toBe('https://fhir.example.org/fhir');
    expect(() => parseMedTarget('https://user:secret@fhir.example.org/')).toThrow(/credentials/);
    expect(() => parseMedTarget('10.0.0.0/24')).toThrow();
    expect(() => parseMedTarget('pacs.example.org:70000')).toThrow();
  });

  it('is what the manifest lists, and what the built executable prints', async () => {
    expect(manifest.catalogue()).toBe(catalogue);
    const bin = await cachedEngineBuild('medscan');
    const rules = await run(process.execPath, [bin, 'rules']);
    expect(JSON.parse(rules.stdout)).toEqual({
      scanner: { name: 'medscan', version: '0.1.0' },
      rules: JSON.parse(JSON.stringify(catalogue)) as unknown,
    });
    expect((await run(process.execPath, [bin, '--version'])).stdout).toBe('medscan 0.1.0\n');
  });
});
