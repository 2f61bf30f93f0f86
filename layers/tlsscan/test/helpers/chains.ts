import 'reflect-metadata/lite';
import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * Certificate chains built to order for the chain-building table (issue 33 item 2): each CA's
 * basicConstraints, path length and keyUsage are chosen per case. ECDSA P-256 keys, so a chain of
 * a hundred certificates is generated in well under a second and fits one handshake message.
 */
const DAY = 86_400_000;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface Node {
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
  name: string;
}

export interface CaOptions {
  /** basicConstraints: CA flag (omit the extension with `null`); default true. */
  ca?: boolean | null;
  pathLen?: number;
  /** keyUsage: default keyCertSign | cRLSign; `digitalSignature` only, or `null` for none. */
  keyUsage?: 'certSign' | 'digitalSignature' | null;
}

let serial = 1000;

function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return crypto.subtle.generateKey(EC, true, ['sign', 'verify']);
}

function caExtensions(options: CaOptions): x509.Extension[] {
  const extensions: x509.Extension[] = [];
  const ca = options.ca === undefined ? true : options.ca;
  if (ca !== null) extensions.push(new x509.BasicConstraintsExtension(ca, options.pathLen, true));
  const usage = options.keyUsage === undefined ? 'certSign' : options.keyUsage;
  if (usage === 'certSign') extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true));
  if (usage === 'digitalSignature') extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true));
  return extensions;
}

export async function root(name: string, options: CaOptions = {}): Promise<Node> {
  x509.cryptoProvider.set(crypto);
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    serialNumber: String(serial++),
    signingAlgorithm: SIGN,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    extensions: caExtensions(options),
  });
  return { cert, keys, name };
}

/** A CA certificate for `name` signed by `issuer` (with `keys` to reuse a key, for cross-signing). */
export async function ca(issuer: Node, name: string, options: CaOptions = {}, keys?: webcrypto.CryptoKeyPair): Promise<Node> {
  const own = keys ?? (await newKeys());
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    publicKey: own.publicKey,
    signingKey: issuer.keys.privateKey,
    serialNumber: String(serial++),
    signingAlgorithm: SIGN,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    extensions: caExtensions(options),
  });
  return { cert, keys: own, name };
}

/** A server leaf for localhost (CA:FALSE, serverAuth) signed by `issuer`. */
export async function leaf(issuer: Node, name = 'localhost'): Promise<Node> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    serialNumber: String(serial++),
    signingAlgorithm: SIGN,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 90 * DAY),
    extensions: [
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }]),
      new x509.BasicConstraintsExtension(false),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  return { cert, keys, name };
}

/** `count` CAs below `top`, each issuing the next; returns them top first. */
export async function ladder(top: Node, count: number, prefix: string): Promise<Node[]> {
  const out: Node[] = [];
  let issuer = top;
  for (let i = 0; i < count; i++) {
    issuer = await ca(issuer, `${prefix} ${i + 1}`);
    out.push(issuer);
  }
  return out;
}

export const der = (node: Node): Buffer => Buffer.from(node.cert.rawData);
export const pem = (node: Node): string => node.cert.toString('pem');
