import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { embeddedImage, logoMatches, parseLogotype } from '../../src/reputation/logotype.ts';
import * as x509 from '../../src/reputation/x509.ts';
import { logotypeDer, svgLogo } from './x509-fixtures.ts';

const LOGOTYPE_OID = '1.3.6.1.5.5.7.1.12';

describe('parseLogotype', () => {
  it('reads the subject logo of a real VMC: an SVG, its hash, and the gzipped SVG in a data: URI', () => {
    const pem = readFileSync(new URL('../../../../test/fixtures/mailscan/vmc/cnn-vmc.pem', import.meta.url), 'utf8');
    const [leaf] = x509.PemConverter.decode(pem).map((der) => new x509.X509Certificate(der));

    const [image, ...rest] = parseLogotype(new Uint8Array(leaf.getExtension(LOGOTYPE_OID)!.value));

    expect(rest).toEqual([]);
    expect(image.mediaType).toBe('image/svg+xml');
    // This 2021 VMC hashes with SHA-1 (id-sha1), over the uncompressed SVG.
    expect(image.hashes.map((hash) => hash.oid)).toEqual(['1.3.14.3.2.26']);
    const svg = embeddedImage(image.uris[0])!;
    expect(new TextDecoder().decode(svg)).toContain('<svg');
    expect(Buffer.from(image.hashes[0].value).equals(createHash('sha1').update(svg).digest())).toBe(true);
    expect(logoMatches([image], svg)).toBe(true);
  });

  it('reads an extension written by an independent DER encoder', () => {
    const [image] = parseLogotype(logotypeDer(svgLogo, 'hash-only'));

    expect(image).toEqual({
      mediaType: 'image/svg+xml',
      hashes: [{ oid: '2.16.840.1.101.3.4.2.1', value: new Uint8Array(createHash('sha256').update(svgLogo).digest()) }],
      uris: ['https://brand.test/logo.svg'],
    });
  });

  it('throws on malformed DER and finds no image without a direct subject logo', () => {
    const der = logotypeDer(svgLogo, 'standard');

    expect(() => parseLogotype(der.subarray(0, der.length - 5))).toThrow();
    // An empty LogotypeExtn: no subjectLogo at all.
    expect(parseLogotype(new Uint8Array([0x30, 0x00]))).toEqual([]);
  });
});
