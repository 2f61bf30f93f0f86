import { describe, expect, it } from 'vitest';
import { COVERAGE_DOMAINS, compareWithDnstwist, dnstwistInstalled, formatCoverage } from '../helpers/dnstwist.ts';

const installed = dnstwistInstalled();
if (!installed) process.stderr.write('dnstwist coverage test skipped: dnstwist is not installed (apt-get install dnstwist)\n');

describe.runIf(installed)('permutation coverage against dnstwist', () => {
  it('generates every name dnstwist generates, family by family, for twenty domains', async () => {
    const rows = await compareWithDnstwist(COVERAGE_DOMAINS);
    process.stdout.write(`${formatCoverage(rows)}\n`);

    expect(rows.map((row) => row.family)).toEqual(
      expect.arrayContaining([
        'addition',
        'bitsquatting',
        'homoglyph',
        'hyphenation',
        'insertion',
        'omission',
        'repetition',
        'replacement',
        'subdomain',
        'transposition',
        'vowel-swap',
        'tld-swap',
      ]),
    );
    for (const row of rows) expect({ family: row.family, missing: row.missing.slice(0, 5) }).toEqual({ family: row.family, missing: [] });
    expect(rows.every((row) => row.theirs > 0)).toBe(true);
  });
});
