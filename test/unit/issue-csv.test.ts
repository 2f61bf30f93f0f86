import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../shared/domain/issue-csv.ts';

describe('issue CSV cells', () => {
  it('neutralises cells a spreadsheet would run as a formula', () => {
    expect(['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\t=x', '\r=x'].map(csvCell)).toEqual([
      "'=1+1",
      "'+SUM(A1)",
      "'-2+3",
      "'@cmd",
      "'\t=x",
      `"'\r=x"`,
    ]);
  });

  it('quotes commas, quotes and line breaks, and writes nothing for null', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', null, 3])).toBe('"a,b","say ""hi""","two\nlines",,3\r\n');
  });

  it('leaves ordinary text, dates and numbers as they are', () => {
    expect(csvLine(['mailscan.spf.missing', '2026-03-01T00:00:00.000Z', 12])).toBe('mailscan.spf.missing,2026-03-01T00:00:00.000Z,12\r\n');
  });
});
