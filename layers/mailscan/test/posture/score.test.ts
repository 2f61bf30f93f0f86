import { describe, expect, it } from 'vitest';
import type { DkimData } from '../../src/posture/dkim-check.ts';
import type { DmarcData } from '../../src/posture/dmarc-check.ts';
import { gradeOf, scorePosture } from '../../src/posture/score.ts';
import type { SpfData } from '../../src/posture/spf/spf-check.ts';

const spf = (overrides: Partial<SpfData> = {}): SpfData => ({
  status: 'ok',
  record: 'v=spf1 -all',
  records: ['v=spf1 -all'],
  lookups: 0,
  lookup_limit: 10,
  void_lookups: 0,
  void_lookups_by_family: { ipv4: 0, ipv6: 0 },
  void_lookup_limit: 2,
  all: '-all',
  all_known: true,
  expansion_truncated: false,
  loops: [],
  duplicate_includes: [],
  macros: [],
  permerrors: [],
  tree: { domain: 'a.test', record: 'v=spf1 -all', status: 'ok', txt: 'found', terms: [], lookups: 0, void_lookups: 0 },
  ...overrides,
});
const dmarc = (overrides: Partial<DmarcData> = {}): DmarcData => ({
  status: 'ok',
  record: 'v=DMARC1; p=reject',
  source: 'domain',
  record_domain: 'a.test',
  organizational_domain: 'a.test',
  policy: 'reject',
  problems: [],
  tags: { p: 'reject', sp: null, np: null, pct: 100, adkim: 'r', aspf: 'r', rua: ['mailto:d@a.test'], ruf: [], fo: null, ri: null },
  report_destinations: [{ uri: 'mailto:d@a.test', kind: 'rua', address: 'd@a.test', domain: 'a.test', external: false, authorized: null }],
  ...overrides,
});
const dkim = (bits: number | null, keyType = 'rsa'): DkimData => ({
  status: bits === null ? 'none' : 'ok',
  selectors_probed: 1,
  unknown_selectors: [],
  keys: bits === null ? [] : [{ selector: 's', record: '', key_type: keyType, bits, hash_algorithms: [], revoked: false, testing: false }],
});

describe('posture score', () => {
  it('gives 100 to -all, p=reject with reporting, and a 2048-bit key', () => {
    expect(scorePosture(spf(), dmarc(), dkim(2048))).toEqual({ score: 100, grade: 'A', breakdown: { spf: 35, dmarc: 40, dkim: 25 } });
  });

  it('takes points for ~all, p=none, and a 1024-bit key', () => {
    const result = scorePosture(spf({ all: '~all' }), dmarc({ policy: 'none' }), dkim(1024));

    expect(result.breakdown).toEqual({ spf: 33, dmarc: 20, dkim: 20 });
    expect(result).toMatchObject({ score: 73, grade: 'C' });
  });

  it('gives nothing for +all or for missing records', () => {
    const result = scorePosture(spf({ all: '+all' }), dmarc({ status: 'none', tags: null, policy: null }), dkim(null));

    expect(result).toMatchObject({ score: 0, grade: 'F' });
  });

  it('gives no SPF points to a record that does not parse', () => {
    const broken = spf({
      status: 'permerror',
      all: null,
      tree: { domain: 'a.test', record: 'v=spf1 bogus', status: 'permerror', txt: 'found', terms: [], lookups: 0, void_lookups: 0 },
    });

    expect(scorePosture(broken, dmarc(), dkim(2048)).breakdown.spf).toBe(0);
  });

  it('has no score when a component could not be determined', () => {
    expect(scorePosture(spf({ status: 'temperror' }), dmarc(), dkim(2048))).toMatchObject({
      score: null,
      grade: null,
      breakdown: { spf: null },
    });
  });

  it('grades by tens from 90', () => {
    expect([95, 90, 89, 80, 79, 70, 69, 60, 59].map(gradeOf)).toEqual(['A', 'A', 'B', 'B', 'C', 'C', 'D', 'D', 'F']);
  });
});
