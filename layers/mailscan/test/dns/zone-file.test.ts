import { describe, expect, it } from 'vitest';
import { parseZone } from '../helpers/zone-file.ts';

describe('test zone reader', () => {
  it('reads origins, omitted owners, parentheses, comments and multi-string TXT', () => {
    const zone = [
      '$ORIGIN z.test.',
      '$TTL 60',
      '@ IN SOA ns hostmaster ( 1 ; serial',
      '   3600 600 86400 300 )',
      'a 120 IN TXT "v=spf1 " "-all" ; trailing',
      '  IN MX 10 mx.other.test.',
      'b CNAME a',
    ].join('\n');

    const records = parseZone(zone);

    expect(records.map((record) => [record.name, record.type, record.ttl])).toEqual([
      ['z.test', 'SOA', 60],
      ['a.z.test', 'TXT', 120],
      ['a.z.test', 'MX', 60],
      ['b.z.test', 'CNAME', 60],
    ]);
    expect((records[1].data as Buffer[]).map(String)).toEqual(['v=spf1 ', '-all']);
    expect(records[2].data).toEqual({ preference: 10, exchange: 'mx.other.test' });
    expect(records[3].data).toBe('a.z.test');
  });

  it('keeps semicolons and escaped quotes inside quoted strings', () => {
    const records = parseZone('x TXT "v=DMARC1; p=none" "say \\"hi\\""', { origin: 'z.test' });

    expect((records[0].data as Buffer[]).map(String)).toEqual(['v=DMARC1; p=none', 'say "hi"']);
  });
});
