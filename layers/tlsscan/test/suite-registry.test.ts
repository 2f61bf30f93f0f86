import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUITES } from '../../engine-kit/src/tls/suites.ts';

/**
 * tlsscan's suite table is typed from the IANA registry. testssl.sh ships its own mapping of codes
 * to names and ciphers (Debian: /etc/testssl/cipher-mapping.txt); reading it here checks every code
 * and every classification against an independent source, without copying it into the engine.
 */
const MAPPING = '/etc/testssl/cipher-mapping.txt';

interface Row {
  name: string;
  kx: string;
  au: string;
  enc: string;
  export: boolean;
}

function testsslRows(): Map<number, Row> {
  const rows = new Map<number, Row>();
  for (const line of readFileSync(MAPPING, 'utf8').split('\n')) {
    const match = /^\s*0x([0-9A-F]{2}),0x([0-9A-F]{2}) - \S+\s+(\S+)\s+\S+\s+Kx=(\S+)\s+Au=(\S+)\s+Enc=(\S+)\s+Mac=\S+\s*(export)?/.exec(
      line,
    );
    if (match)
      rows.set(parseInt(match[1] + match[2], 16), {
        name: match[3],
        kx: match[4],
        au: match[5],
        enc: match[6],
        export: match[7] === 'export',
      });
  }
  return rows;
}

describe.skipIf(!existsSync(MAPPING))("the suite table against testssl.sh's mapping", () => {
  const rows = existsSync(MAPPING) ? testsslRows() : new Map<number, Row>();

  it('names every code as testssl does', () => {
    const differences = SUITES.flatMap((suite) => {
      const row = rows.get(suite.code);
      if (!row) return [`0x${suite.code.toString(16)} ${suite.name}: not in testssl's mapping`];
      // testssl spells the pre-standard ChaCha codes with a _SHA256 before _OLD, and 0x0061 without
      // the CBC of its draft (draft-ietf-tls-56-bit-ciphersuites-01 names it ..._RC2_CBC_56_MD5).
      const theirs = row.name.replace('_SHA256_OLD', '_OLD').replace('EXPORT1024_WITH_RC2_56', 'EXPORT1024_WITH_RC2_CBC_56');
      return theirs === suite.name ? [] : [`0x${suite.code.toString(16)}: ${suite.name} vs ${row.name}`];
    });
    expect(differences).toEqual([]);
  });

  it('classifies every suite as its cipher, key exchange and authentication say', () => {
    const differences = SUITES.flatMap((suite) => {
      const row = rows.get(suite.code)!;
      const expected = {
        nullCipher: row.enc === 'None',
        anonymous: row.au === 'None',
        export: row.export,
        rc4: row.enc.startsWith('RC4'),
        singleDes: /^DES\((40|56)\)$/.test(row.enc),
        block64: /^(3DES|IDEA)\(/.test(row.enc),
      };
      const ours = {
        nullCipher: suite.nullCipher,
        anonymous: suite.anonymous,
        export: suite.export,
        rc4: suite.rc4,
        singleDes: suite.singleDes,
        block64: suite.block64,
      };
      return JSON.stringify(ours) === JSON.stringify(expected)
        ? []
        : [`${suite.name}: ours ${JSON.stringify(ours)} testssl ${JSON.stringify(expected)}`];
    });
    expect(differences).toEqual([]);
  });
});
