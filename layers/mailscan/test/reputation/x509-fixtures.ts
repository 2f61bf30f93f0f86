import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createHash, type webcrypto } from 'node:crypto';
import * as x509 from '../../src/reputation/x509.ts';

/**
 * Certificates generated at test time: a test VMC root, an optional intermediate, leaves with
 * chosen defects, and a TLS certificate for loopback HTTPS servers. ECDSA P-256 keeps generation
 * fast; serial numbers and dates are fixed so every run builds the same shapes.
 */
const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
export const BIMI_EKU = '1.3.6.1.5.5.7.3.31';
const LOGOTYPE_OID = '1.3.6.1.5.5.7.1.12';
const SHA256_OID = '2.16.840.1.101.3.4.2.1';

export interface Issuer {
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
  pem: string;
}

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
}

export async function makeRoot(name = 'CN=Test VMC Root'): Promise<Issuer> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys,
    serialNumber: '01',
    signingAlgorithm: algorithm,
    notBefore: new Date('2020-01-01T00:00:00Z'),
    notAfter: new Date('2040-01-01T00:00:00Z'),
    extensions: [new x509.BasicConstraintsExtension(true, 1, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return { cert, keys, pem: cert.toString('pem') };
}

export async function makeIntermediate(root: Issuer, name = 'CN=Test VMC Intermediate'): Promise<Issuer> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    subject: name,
    issuer: root.cert.subject,
    publicKey: keys.publicKey,
    signingKey: root.keys.privateKey,
    serialNumber: '02',
    signingAlgorithm: algorithm,
    notBefore: new Date('2020-01-01T00:00:00Z'),
    notAfter: new Date('2035-01-01T00:00:00Z'),
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return { cert, keys, pem: cert.toString('pem') };
}

export interface LeafOptions {
  domains?: string[];
  eku?: string[] | null;
  notBefore?: Date;
  notAfter?: Date;
  /** The SVG whose hash (and gzipped copy) the logotype extension carries; null omits the extension. */
  logo?: Uint8Array | null;
  serial?: string;
  /**
   * standard: SHA-256 of the SVG plus the gzipped SVG in a data: URI; hash-of-gzip: the hash taken
   * over the compressed bytes instead; hash-only: the hash and an https: URI, no embedded copy.
   */
  logotypeForm?: 'standard' | 'hash-of-gzip' | 'hash-only';
}

const vmcFixtures = new URL('../../../../test/fixtures/mailscan/vmc/', import.meta.url);
export const svgLogo = new Uint8Array(readFileSync(new URL('logo.svg', vmcFixtures)));
export const otherSvgLogo = new Uint8Array(readFileSync(new URL('other-logo.svg', vmcFixtures)));

/** A VMC leaf for brand.test valid through 2025 unless told otherwise. */
export async function makeLeaf(issuer: Issuer, options: LeafOptions = {}): Promise<string> {
  const keys = await newKeys();
  const extensions: x509.Extension[] = [
    new x509.SubjectAlternativeNameExtension((options.domains ?? ['brand.test']).map((value) => ({ type: 'dns' as const, value }))),
  ];
  const eku = options.eku === undefined ? [BIMI_EKU] : options.eku;
  if (eku) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  const logo = options.logo === undefined ? svgLogo : options.logo;
  if (logo) extensions.push(new x509.Extension(LOGOTYPE_OID, false, logotypeDer(logo, options.logotypeForm ?? 'standard')));
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${(options.domains ?? ['brand.test'])[0]}`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    serialNumber: options.serial ?? '10',
    signingAlgorithm: algorithm,
    extensions,
    notBefore: options.notBefore ?? new Date('2025-01-01T00:00:00Z'),
    notAfter: options.notAfter ?? new Date('2026-01-01T00:00:00Z'),
  });
  return cert.toString('pem');
}

/** A TLS server certificate for the names a loopback HTTPS server is reached by. */
export async function makeTlsServerCert(root: Issuer, names: string[]): Promise<{ cert: string; key: string }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${names[0]}`,
    issuer: root.cert.subject,
    publicKey: keys.publicKey,
    signingKey: root.keys.privateKey,
    serialNumber: '20',
    signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value })))],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

// RFC 3709 LogotypeExtn with a direct subjectLogo: image/svg+xml, SHA-256 of the SVG, and the
// gzipped SVG in a data: URI, as VMC issuers publish it.
export function logotypeDer(svg: Uint8Array, form: NonNullable<LeafOptions['logotypeForm']>): Uint8Array {
  const gzipped = gzipSync(svg);
  const hash = createHash('sha256')
    .update(form === 'hash-of-gzip' ? gzipped : svg)
    .digest();
  const uri = form === 'hash-only' ? 'https://brand.test/logo.svg' : `data:image/svg+xml;base64,${gzipped.toString('base64')}`;
  const details = seq(ia5(0x16, 'image/svg+xml'), seq(seq(seq(oid(SHA256_OID)), tlv(0x04, hash))), seq(ia5(0x16, uri)));
  const logotypeData = tlv(0xa0, seq(seq(details)));
  return seq(tlv(0xa2, logotypeData));
}

function tlv(tag: number, content: Uint8Array): Uint8Array {
  const n = content.length;
  const length =
    n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return new Uint8Array([tag, ...length, ...content]);
}

function seq(...parts: Uint8Array[]): Uint8Array {
  return tlv(0x30, new Uint8Array(parts.flatMap((part) => Array.from(part))));
}

function ia5(tag: number, text: string): Uint8Array {
  return tlv(tag, new TextEncoder().encode(text));
}

function oid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, new Uint8Array(bytes));
}
