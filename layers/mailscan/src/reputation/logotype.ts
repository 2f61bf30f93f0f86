import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { AsnConvert } from '@peculiar/asn1-schema';
import { LogotypeExtn } from '@peculiar/asn1-x509-logotype';

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

/**
 * Subject logo images of a LogotypeExtn, decoded with the PKI.js/peculiar ASN.1 schema of RFC 3709
 * (the same family as @peculiar/x509); throws on malformed DER. An indirect subject logo (a
 * reference to a structure elsewhere) carries no image here.
 */
export function parseLogotype(extnValue: Uint8Array): LogotypeImage[] {
  const extension = AsnConvert.parse(extnValue, LogotypeExtn);
  return (extension.subjectLogo?.direct?.image ?? []).map(({ imageDetails }) => ({
    mediaType: imageDetails.mediaType,
    hashes: imageDetails.logotypeHash.map(({ hashAlg, hashValue }) => ({
      oid: hashAlg.algorithm,
      value: new Uint8Array(hashValue.buffer),
    })),
    uris: imageDetails.logotypeURI,
  }));
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
  return images.some(
    (image) =>
      image.hashes.some(({ oid, value }) => {
        const algorithm = hashByOid[oid];
        return algorithm !== undefined && Buffer.from(value).equals(createHash(algorithm).update(svg).digest());
      }) ||
      image.uris.some((uri) => {
        const embedded = embeddedImage(uri);
        return embedded !== null && Buffer.from(embedded).equals(Buffer.from(svg));
      }),
  );
}
