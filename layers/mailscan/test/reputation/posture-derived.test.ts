import { describe, expect, it } from 'vitest';
import { checkDkimHygiene } from '../../src/reputation/dkim-hygiene.ts';
import { checkMxProvider, providerOf } from '../../src/reputation/mx-provider.ts';
import { checkSpfLookupLimit } from '../../src/reputation/spf-limit.ts';
import { input } from './test-context.ts';

describe('checkSpfLookupLimit', () => {
  it('fires spf.lookup_limit at 11 lookups', () => {
    const result = checkSpfLookupLimit(input({ spfLookups: 11 }));

    expect(result.data).toEqual({ status: 'over_limit', lookups: 11, limit: 10 });
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.spf.lookup_limit',
        severity: 'high',
        evidence: { domain: 'brand.test', lookups: 11, limit: 10 },
      }),
    ]);
  });

  it('does not fire at exactly 10 lookups', () => {
    const result = checkSpfLookupLimit(input({ spfLookups: 10 }));

    expect(result.data.status).toBe('within_limit');
    expect(result.findings).toEqual([]);
  });

  it('reports no SPF record without a finding', () => {
    expect(checkSpfLookupLimit(input({ spfLookups: null })).data.status).toBe('no_spf');
  });
});

describe('checkDkimHygiene', () => {
  const key = (selector: string, keyType: string, bits: number | null, hashAlgorithms: string[] = []) => ({
    selector,
    keyType,
    bits,
    hashAlgorithms,
  });

  it.each([
    ['an RSA key under 1024 bits', key('s512', 'rsa', 512), 'high'],
    ['an RSA key of 1024 bits', key('s1024', 'rsa', 1024), 'medium'],
    ['a key limited to sha1', key('sha1', 'rsa', 2048, ['sha1']), 'medium'],
    ['a small key limited to sha1 at its worst severity', key('both', 'rsa', 768, ['sha1']), 'high'],
  ])('fires dkim.weak_key for %s', (_name, dkimKey, severity) => {
    const result = checkDkimHygiene(input({ dkimKeys: [dkimKey] }));

    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.dkim.weak_key',
        severity,
        evidence: expect.objectContaining({ selector: dkimKey.selector }),
      }),
    ]);
    expect(result.data.keys[0].verdict).toBe('weak');
  });

  it.each([
    ['a 2048-bit RSA key', key('s2048', 'rsa', 2048, ['sha256'])],
    ['an Ed25519 key', key('ed', 'ed25519', 256)],
    ['a key allowing sha1 and sha256', key('mixed', 'rsa', 2048, ['sha1', 'sha256'])],
  ])('does not fire for %s', (_name, dkimKey) => {
    const result = checkDkimHygiene(input({ dkimKeys: [dkimKey] }));

    expect(result.findings).toEqual([]);
    expect(result.data.keys[0].verdict).toBe('ok');
  });

  it('claims nothing about an RSA key of unknown size', () => {
    const result = checkDkimHygiene(input({ dkimKeys: [key('odd', 'rsa', null)] }));

    expect(result.findings).toEqual([]);
    expect(result.data.keys[0].verdict).toBe('unknown');
  });
});

describe('checkMxProvider', () => {
  it.each([
    ['aspmx.l.google.com', 'Google Workspace'],
    ['brand-test.mail.protection.outlook.com.', 'Microsoft 365'],
    ['mx0a-001.pphosted.com', 'Proofpoint'],
    ['eu-smtp-inbound-1.mimecast.com', 'Mimecast'],
    ['mx.zoho.eu', 'Zoho Mail'],
    ['in1-smtp.messagingengine.com', 'Fastmail'],
    ['inbound-smtp.eu-west-1.amazonaws.com', 'Amazon SES / WorkMail'],
    ['mta5.am0.yahoodns.net', 'Yahoo'],
    ['mx01.mail.icloud.com', 'iCloud Mail'],
    ['d12345.ess.barracudanetworks.com', 'Barracuda Email Protection'],
    ['mx1.hc1234-5.iphmx.com', 'Cisco Secure Email (IronPort)'],
  ])('recognises %s as %s', (host, provider) => {
    expect(providerOf(host)).toBe(provider);
  });

  it('does not mistake an EC2 host or a look-alike for a provider', () => {
    expect(providerOf('ec2-203-0-113-1.compute-1.amazonaws.com')).toBeNull();
    expect(providerOf('mail.notgoogle.com')).toBeNull();
  });

  it('lists each host with its provider and the distinct providers', () => {
    const mx = ['alt1.aspmx.l.google.com', 'aspmx.l.google.com', 'mx.brand.test'].map((host, i) => ({
      host,
      preference: i,
      ipv4: [],
      ipv6: [],
    }));

    const result = checkMxProvider(input({ mx }));

    expect(result.data.providers).toEqual(['Google Workspace']);
    expect(result.data.hosts[2]).toEqual({ host: 'mx.brand.test', provider: null });
    expect(result.findings).toEqual([]);
  });
});
