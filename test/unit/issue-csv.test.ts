import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../shared/domain/issue-csv.ts';

describe('issue CSV cells', () => {
  it('neutralises cells a spreadsheet would run as a formula', () => {
    expect(['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\t=x', '\r=x'].map(csvCell)).toEqual([
      `"'=1+1"`,
      `"'+SUM(A1)"`,
      `"'-2+3"`,
      `"'@cmd"`,
      `"'\t=x"`,
      `"'\r=x"`,
    ]);
  });

  // Issue 33 item 12: an importer splitting on ; (or on , in a cell it did not see quoted) starts a cell there.
  it('neutralises a formula after a ; or , inside a cell as it does a leading one', () => {
    expect(['a;=HYPERLINK("http://evil")', 'x,+1', 'y; -2', 'z;@cmd', 'no,formula'].map(csvCell)).toEqual([
      `"a;'=HYPERLINK(""http://evil"")"`,
      `"x,'+1"`,
      `"y; -2"`,
      `"z;'@cmd"`,
      `"no,formula"`,
    ]);
  });

  it('quotes every cell, doubles quotes, keeps line breaks, and writes an empty cell for null', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', null, 3])).toBe('"a,b","say ""hi""","two\nlines","","3"\r\n');
    expect(csvLine(['mailscan.spf.missing', '2026-03-01T00:00:00.000Z', 12])).toBe(
      '"mailscan.spf.missing","2026-03-01T00:00:00.000Z","12"\r\n',
    );
  });
});
