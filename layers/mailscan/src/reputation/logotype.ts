import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { children, decodeAscii, decodeOid, readTlv } from './der.ts';

/**
 * The logo a VMC certifies: RFC 3709 logotype extension, subjectLogo, direct image(s). VMC issuers
 * put the SHA-256 of the SVG in logotypeHash and the gzipped SVG itself in a data: URI.
 */
export interface LogotypeImage {
  mediaType: string;
  hashes: { oid: string; value: Uint8Array }[];
  uris: string[];
}

const hashByOid: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** A decompressed logo larger than this is not an SVG we would compare (gzip bombs). */
const MAX_LOGO_BYTES = 1024 * 1024;

/** Subject logo images of a LogotypeExtn; throws on malformed DER. */
export function parseLogotype(extnValue: Uint8Array): LogotypeImage[] {
  const top = readTlv(extnValue);
  const subjectLogo = children(top.content).find((element) => element.tag === 0xa2);
  if (!subjectLogo) return [];
  const info = readTlv(subjectLogo.content);
  // [0] direct LogotypeData; [1] indirect (a reference to a structure elsewhere) carries no image here.
  if (info.tag !== 0xa0) return [];
  const imageSequence = children(info.content).find((element) => element.tag === 0x30);
  if (!imageSequence) return [];
  return children(imageSequence.content).map((image) => {
    const [details] = children(image.content);
    if (!details) throw new Error('logotype: image without details');
    const [mediaType, hashes, uris] = children(details.content);
    if (!mediaType || !hashes || !uris) throw new Error('logotype: incomplete image details');
    return {
      mediaType: decodeAscii(mediaType.content),
      hashes: children(hashes.content).map((pair) => {
        const [algorithm, value] = children(pair.content);
        const [oid] = children(algorithm?.content ?? new Uint8Array());
        if (!oid || !value) throw new Error('logotype: incomplete hash');
        return { oid: decodeOid(oid.content), value: value.content };
      }),
      uris: children(uris.content).map((uri) => decodeAscii(uri.content)),
    };
  });
}

/** The image a data: URI carries, gunzipped when compressed; null for other URIs or bad data. */
export function embeddedImage(uri: string): Uint8Array | null {
  const match = /^data:([^,]*),(.*)$/s.exec(uri);
  if (!match) return null;
  const raw = match[1].endsWith(';base64') ? Buffer.from(match[2], 'base64') : Buffer.from(decodeURIComponent(match[2]), 'utf8');
  return ungzip(raw);
}

/** gunzip when the bytes start with the gzip magic (VMC data URIs, .svgz servers); null on bad data. */
export function ungzip(bytes: Uint8Array): Uint8Array | null {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return new Uint8Array(gunzipSync(bytes, { maxOutputLength: MAX_LOGO_BYTES }));
  } catch {
    return null;
  }
}

/**
 * Whether the served SVG is the certified logo: its hash equals a logotypeHash (the hash-in-
 * logotype form), or it equals the SVG embedded in a data: URI (whose hash some issuers take
 * over the compressed bytes instead).
 */
export function logoMatches(images: LogotypeImage[], served: Uint8Array): boolean {
  const svg = ungzip(served);
  if (!svg) return false;
  return images.some((image) =>
    image.hashes.some(({ oid, value }) => {
      const algorithm = hashByOid[oid];
      return algorithm !== undefined && Buffer.from(value).equals(createHash(algorithm).update(svg).digest());
    }) || image.uris.some((uri) => {
      const embedded = embeddedImage(uri);
      return embedded !== null && Buffer.from(embedded).equals(Buffer.from(svg));
    }));
}
