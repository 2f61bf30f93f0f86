import { describe, expect, it } from 'vitest';
import { mailtoAddress, parseDmarc } from '../../src/posture/dmarc-record.ts';

describe('DMARC record parsing', () => {
  it('reads every tag with RFC 7489 defaults', () => {
    const parsed = parseDmarc(
      'v=DMARC1; p=reject; sp=quarantine; np=reject; rua=mailto:a@x.test, mailto:b@y.test!10m; ruf=mailto:f@x.test; fo=1',
    );

    expect(parsed).toEqual({
      ok: true,
      problems: [],
      tags: {
        p: 'reject',
        sp: 'quarantine',
        np: 'reject',
        pct: 100,
        adkim: 'r',
        aspf: 'r',
        rua: ['mailto:a@x.test', 'mailto:b@y.test!10m'],
        ruf: ['mailto:f@x.test'],
        fo: '1',
        ri: null,
      },
    });
  });

  it('treats a missing p as none when rua is set, and as unusable otherwise', () => {
    expect(parseDmarc('v=DMARC1; rua=mailto:a@x.test')).toMatchObject({ ok: true, tags: { p: 'none' } });
    expect(parseDmarc('v=DMARC1; pct=50')).toMatchObject({ ok: false });
  });

  it('lists invalid values as problems', () => {
    const parsed = parseDmarc('v=DMARC1; p=reject; pct=150; adkim=x; sp=block');

    expect(parsed.ok && parsed.problems).toEqual([
      'pct=150 is not 0-100',
      'sp=block is not none, quarantine or reject',
      'adkim=x is not r or s',
    ]);
  });

  it('extracts the mailbox of a mailto URI without its size limit', () => {
    expect(mailtoAddress('mailto:Reports@Collector.test!50m')).toBe('reports@collector.test');
    expect(mailtoAddress('https://collector.test/')).toBeNull();
  });
});
