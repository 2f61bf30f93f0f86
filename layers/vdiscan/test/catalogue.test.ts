/**
 * vdiscan's catalogue is DESIGN §21's table: every rule with its exact id and severity, tlsscan's
 * rules on RDP's TLS layer prefixed `vdi.rdp.`, and `vdiscan rules` printing it; the target and
 * scope forms of §21.
 */
import { describe, expect, it } from 'vitest';
import { runEngineCli } from '../../engine-kit/src/cli.ts';
import { catalogue as tlsCatalogue } from '../../engine-kit/src/tls/catalogue.ts';
import { catalogue } from '../src/catalogue.ts';
import { vdiscanDefinition } from '../src/engine.ts';
import { VdiScope, portsOf } from '../src/scope.ts';
import { parseVdiTarget } from '../src/target.ts';
import { bulletinsFor, compareVersions, severityOfCvss } from '../src/bulletins.ts';

const DESIGN_21: Record<string, string> = {
  'vdi.rdp.nla_not_required': 'high',
  'vdi.rdp.standard_security': 'high',
  'vdi.rdp.weak_encryption': 'medium',
  'vdi.rdp.ntlm_disclosure': 'low',
  'vdi.vnc.no_auth': 'critical',
  'vdi.vnc.weak_auth_only': 'high',
  'vdi.vnc.cleartext': 'medium',
  'vdi.gateway.detected': 'info',
  'vdi.gateway.vulnerable_version': 'high', // "from CVSS": computed per finding; high is the catalogue's default
  'vdi.horizon.info_disclosure': 'medium',
};

describe('vdiscan catalogue (DESIGN §21)', () => {
  it('holds every rule of §21 with its severity, and vdi.rdp.tls.* as tlsscan’s rules (as §12)', () => {
    const own = catalogue.filter((rule) => !rule.rule_id.startsWith('vdi.rdp.tls.'));
    expect(Object.fromEntries(own.map((rule) => [rule.rule_id, rule.severity]))).toEqual(DESIGN_21);
    expect(catalogue.find((rule) => rule.rule_id === 'vdi.gateway.vulnerable_version')?.computed_severity).toBe(true);
    const tls = catalogue.filter((rule) => rule.rule_id.startsWith('vdi.rdp.tls.'));
    expect(tls.map((rule) => [rule.rule_id, rule.severity])).toEqual(
      tlsCatalogue.map((rule) => [`vdi.rdp.${rule.rule_id}`, rule.severity]),
    );
    expect(tls.find((rule) => rule.rule_id === 'vdi.rdp.tls.cert.untrusted')).toBeDefined();
    for (const rule of catalogue) expect(rule.references.length, rule.rule_id).toBeGreaterThan(0);
  });

  it('`vdiscan rules` prints the catalogue', async () => {
    let stdout = '';
    const code = await runEngineCli(vdiscanDefinition(), ['rules'], {
      stdout: (t) => (stdout += t),
      stderr: () => {},
      env: {},
      now: () => new Date(),
    });
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { rules: unknown[] }).rules).toHaveLength(catalogue.length);
  });

  it('takes an IP, a host name or host:port; a port in the target is the one port probed', () => {
    expect(parseVdiTarget('rdp.example.com')).toEqual({ ok: true, target: { host: 'rdp.example.com' } });
    expect(parseVdiTarget('rdp.example.com:3390')).toEqual({ ok: true, target: { host: 'rdp.example.com', port: 3390 } });
    expect(parseVdiTarget('[2001:db8::1]:5901')).toEqual({ ok: true, target: { host: '2001:db8::1', port: 5901 } });
    expect(parseVdiTarget('2001:db8::1')).toEqual({ ok: true, target: { host: '2001:db8::1' } });
    expect(parseVdiTarget('10.0.0.0/24').ok).toBe(false);
    expect(parseVdiTarget('host:70000').ok).toBe(false);
    expect(VdiScope.safeParse({ ports: [3389, 5900] }).success).toBe(true);
    expect(VdiScope.safeParse({ ports: [0] }).success).toBe(false);
    expect(VdiScope.safeParse({ ports: '3389, 5900-5903,443' }).success).toBe(true);
    expect(portsOf('3389, 5900-5903,443')).toEqual([3389, 5900, 5901, 5902, 5903, 443]);
    expect(VdiScope.safeParse({ ports: '1-40' }).success).toBe(false);
    expect(VdiScope.safeParse({ ports: '5903-5900' }).success).toBe(false);
    expect(VdiScope.safeParse({ ports: '3389; rm -rf' }).success).toBe(false);
    expect(VdiScope.safeParse({ depth: 2 }).success).toBe(false);
  });

  it('compares versions numerically and maps CVSS to the §11 bands', () => {
    expect(compareVersions('1.5.1', '1.5.2')).toBe(-1);
    expect(compareVersions('1.10.0', '1.9.9')).toBe(1);
    expect(bulletinsFor('guacamole', '0.9.10').map((b) => b.id)).toEqual(['CVE-2023-30575', 'CVE-2023-30576']);
    expect([9.8, 7.0, 6.8, 3.1].map(severityOfCvss)).toEqual(['critical', 'high', 'medium', 'low']);
  });
});
