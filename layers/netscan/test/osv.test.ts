import { describe, expect, it } from 'vitest';
import { cvss3BaseScore, severityOfScore } from '../../../lib/osv/cvss.ts';
import { summarise } from '../../../lib/osv/osv-client.ts';
import { osvPackageOf } from '../src/vm/osv-package.ts';

describe('cvss3BaseScore', () => {
  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10],
    ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N', 5.5],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1],
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', 5.9],
    ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', 7.5],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
  ])('scores %s as %d (NVD)', (vector, score) => {
    expect(cvss3BaseScore(vector)).toBe(score);
  });

  it('refuses what is not a complete v3 vector', () => {
    expect(cvss3BaseScore('AV:N/AC:L/Au:N/C:P/I:P/A:P')).toBeUndefined();
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L')).toBeUndefined();
  });

  it('bands scores as DESIGN §11 does', () => {
    expect([9.0, 8.9, 7.0, 6.9, 4.0, 3.9].map(severityOfScore)).toEqual(['critical', 'high', 'high', 'medium', 'medium', 'low']);
  });
});

describe('osvPackageOf', () => {
  it("names Debian's openssh package from the banner's revision", () => {
    expect(
      osvPackageOf(
        { service: 'ssh', tls: false, product: 'OpenSSH', version: '9.2p1', details: { comment: 'Debian-2+deb12u10' } },
        undefined,
      ),
    ).toEqual({
      name: 'openssh',
      ecosystem: 'Debian:12',
      version: '1:9.2p1-2+deb12u10',
    });
  });

  it('queries an upstream product only where an ecosystem for them is configured', () => {
    const redis = { service: 'redis' as const, tls: false, product: 'Redis', version: '7.0.15' };
    expect(osvPackageOf(redis, undefined)).toEqual({ none: expect.stringContaining('NETSCAN_OSV_UPSTREAM_ECOSYSTEM') });
    expect(osvPackageOf(redis, 'Upstream')).toEqual({ name: 'redis', ecosystem: 'Upstream', version: '7.0.15' });
    expect(osvPackageOf({ service: 'http', tls: false, product: 'Caddy' }, 'Upstream')).toEqual({ none: 'no product version detected' });
  });
});

describe('summarise', () => {
  it('takes the highest CVSS v3 score, the fixed versions of the queried package, and the aliases', () => {
    const vuln = summarise(
      {
        id: 'DSA-0000-1',
        aliases: ['CVE-2024-6387'],
        summary: 'regreSSHion',
        severity: [
          { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H' },
          { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:C/I:C/A:C' },
        ],
        affected: [
          { package: { name: 'openssh' }, ranges: [{ events: [{ introduced: '0' }, { fixed: '1:9.2p1-2+deb12u3' }] }] },
          { package: { name: 'other' }, ranges: [{ events: [{ fixed: '9' }] }] },
        ],
      },
      { name: 'openssh', ecosystem: 'Debian:12', version: '1:9.2p1-2+deb12u2' },
    );
    expect(vuln).toMatchObject({
      id: 'DSA-0000-1',
      aliases: ['CVE-2024-6387'],
      severity: 'high',
      severity_source: 'cvss_v3',
      fixed: ['1:9.2p1-2+deb12u3'],
    });
    expect(vuln.cvss_v3?.score).toBe(8.1);
  });

  it("falls back to the database's label, and says when there is neither", () => {
    const pkg = { name: 'x', ecosystem: 'E', version: '1' };
    expect(summarise({ id: 'A', database_specific: { severity: 'MODERATE' } }, pkg)).toMatchObject({
      severity: 'medium',
      severity_source: 'database',
    });
    expect(summarise({ id: 'B' }, pkg)).toMatchObject({ severity: 'medium', severity_source: 'none' });
  });
});
