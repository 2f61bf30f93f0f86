import { describe, expect, it } from 'vitest';
import { applicability, compareUpstreamVersions, formatCpe, parseCpe } from '../../../lib/nvd/cpe.ts';
import { compareDebianVersions } from '../../../lib/osv/debian-version.ts';

const sign = (n: number) => Math.sign(n);

describe('compareDebianVersions', () => {
  // Each pair as `dpkg --compare-versions a lt b` orders it (deb-version(7)).
  it.each([
    ['1:7.4p1-10+deb9u4', '1:7.4p1-10+deb9u10'],
    ['1:7.4p1-10+deb9u2', '1:7.4p1-10+deb9u4'],
    ['7.9p1-10', '1:7.4p1-10'],
    ['1.0~rc1-1', '1.0-1'],
    ['1.0-1', '1.0-1+b1'],
    ['1.0-1~bpo9+1', '1.0-1'],
    ['2.4.38-3+deb10u8', '2.4.38-3+deb10u10'],
    ['1.2a-1', '1.2+-1'],
    ['1:9.2p1-2+deb12u2', '1:9.2p1-2+deb12u3'],
  ])('orders %s before %s', (a, b) => {
    expect(sign(compareDebianVersions(a, b))).toBe(-1);
    expect(sign(compareDebianVersions(b, a))).toBe(1);
  });

  it('treats leading zeros and an absent epoch as dpkg does', () => {
    expect(compareDebianVersions('0:1.01-1', '1.1-1')).toBe(0);
  });
});

describe('compareUpstreamVersions', () => {
  it.each([
    ['1.9.15', '1.18.0'],
    ['2.4.0rc1', '2.4.0'],
    ['4.92', '4.92.3'],
    ['7.4p1', '9.3p2'],
    ['9.3p1', '9.3p2'],
  ])('orders %s before %s', (a, b) => {
    expect(compareUpstreamVersions(a, b)).toBe(-1);
    expect(compareUpstreamVersions(b, a)).toBe(1);
  });
});

describe('applicability', () => {
  const openssh = (version: string, update = '*') => {
    const cpe = formatCpe('openbsd', 'openssh', version, update);
    return { cpe: parseCpe(cpe)!, announced: `${version}${update === '*' ? '' : update}` };
  };

  it('holds versionEndIncluding 7.7 for 7.7p1 and not 7.8p1', () => {
    const config = [
      { nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', versionEndIncluding: '7.7' }] }] },
    ];
    expect(applicability(openssh('7.7', 'p1'), config).applies).toBe(true);
    expect(applicability(openssh('7.8', 'p1'), config).applies).toBe(false);
  });

  it('is unknown when the configuration also needs a platform the scan cannot see, and false when the version is outside', () => {
    const onWindows = (end: string) => [
      {
        operator: 'AND' as const,
        nodes: [
          { cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', versionEndExcluding: end }] },
          { cpeMatch: [{ vulnerable: false, criteria: 'cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*' }] },
        ],
      },
    ];
    expect(applicability(openssh('7.4', 'p1'), onWindows('8.0')).applies).toBe('unknown');
    expect(applicability(openssh('8.1', 'p1'), onWindows('8.0')).applies).toBe(false);
  });

  it('counts a configuration only through a vulnerable entry of the product itself', () => {
    const debianOnly = [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:o:debian:debian_linux:9.0:*:*:*:*:*:*:*' }] }] }];
    expect(applicability(openssh('7.4', 'p1'), debianOnly).applies).toBe(false);
  });

  it('matches an exact version and update, and no other update', () => {
    const exact = [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:openbsd:openssh:9.3:p1:*:*:*:*:*:*' }] }] }];
    expect(applicability(openssh('9.3', 'p1'), exact).applies).toBe(true);
    expect(applicability(openssh('9.3', 'p2'), exact).applies).toBe(false);
  });

  it('reads escaped CPE values', () => {
    expect(parseCpe(formatCpe('vendor', 'product', '1.0+deb1'))?.[3]).toBe('1.0+deb1');
    expect(parseCpe('cpe:2.3:a:too:short')).toBeUndefined();
  });
});
