import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSpf } from '../../src/posture/spf/spf-record.ts';

describe('SPF record parsing', () => {
  it('reads qualifiers, mechanisms, CIDR lengths and modifiers', () => {
    const parsed = parseSpf(
      'v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 a/24 mx:mail.example.test//64 ~include:_spf.example.test exp=explain.example.test -all',
    );

    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.terms.map((term) => [term.kind, term.name, term.kind === 'mechanism' ? term.qualifier : null])).toEqual([
      ['mechanism', 'ip4', '+'],
      ['mechanism', 'ip6', '+'],
      ['mechanism', 'a', '+'],
      ['mechanism', 'mx', '+'],
      ['mechanism', 'include', '~'],
      ['modifier', 'exp', null],
      ['mechanism', 'all', '-'],
    ]);
  });

  it('marks domain-specs with macros', () => {
    const parsed = parseSpf('v=spf1 exists:%{ir}.%{l1r+-}._spf.%{d} -all');

    expect(parsed.ok && parsed.terms[0]).toMatchObject({ name: 'exists', macro: true });
  });

  it('rejects unknown mechanisms, bad networks and repeated redirects', () => {
    expect(parseSpf('v=spf1 foo:bar -all')).toMatchObject({ ok: false });
    expect(parseSpf('v=spf1 ip4:300.0.0.1 -all')).toMatchObject({ ok: false });
    expect(parseSpf('v=spf1 ip4:192.0.2.1/33 -all')).toMatchObject({ ok: false });
    expect(parseSpf('v=spf1 include -all')).toMatchObject({ ok: false });
    expect(parseSpf('v=spf1 redirect=a.test redirect=b.test')).toMatchObject({ ok: false });
    expect(parseSpf('v=spf10 -all')).toMatchObject({ ok: false });
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseSpf(`v=spf1 ${text}`);
        expect(typeof parsed.ok).toBe('boolean');
      }),
    );
  });
});
