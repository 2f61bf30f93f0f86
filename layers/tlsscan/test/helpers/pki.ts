import 'reflect-metadata/lite';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * A test PKI generated at test time (no private key committed, nothing expires in the
 * repository): a root, an intermediate, and server leaves with one defect each. RSA keys, so the
 * servers can offer RSA key exchange suites too.
 */
type Keys = webcrypto.CryptoKeyPair;

const DAY = 86_400_000;

function rsa(bits: number, hash = 'SHA-256'): webcrypto.RsaHashedKeyGenParams {
  return { name: 'RSASSA-PKCS1-v1_5', modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash };
}

async function newKeys(bits = 2048): Promise<Keys> {
  return crypto.subtle.generateKey(rsa(bits), true, ['sign', 'verify']);
}

/** The same private key bound to another hash (WebCrypto keys carry theirs). */
async function withHash(key: webcrypto.CryptoKey, hash: string): Promise<webcrypto.CryptoKey> {
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', key);
  return crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash }, true, ['sign']);
}

async function keyPem(keys: Keys): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
}

interface Issuer {
  cert: x509.X509Certificate;
  keys: Keys;
  pem: string;
}

export interface Leaf {
  certPem: string;
  keyPem: string;
  der: Buffer;
}

export interface LeafOptions {
  names?: string[];
  ips?: string[];
  notBefore?: Date;
  notAfter?: Date;
  bits?: number;
  hash?: 'SHA-256' | 'SHA-1';
  selfSigned?: boolean;
}

export interface TestPki {
  root: Issuer;
  intermediate: Issuer;
  leaf(options?: LeafOptions): Promise<Leaf>;
}

let serial = 100;

export async function makeTestPki(): Promise<TestPki> {
  x509.cryptoProvider.set(crypto);
  const now = Date.now();
  const rootKeys = await newKeys();
  const rootCert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=tlsscan Test Root',
    keys: rootKeys,
    serialNumber: '01',
    signingAlgorithm: rsa(2048),
    notBefore: new Date(now - 365 * DAY),
    notAfter: new Date(now + 3650 * DAY),
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const root = { cert: rootCert, keys: rootKeys, pem: rootCert.toString('pem') };
  const intermediateKeys = await newKeys();
  const intermediateCert = await x509.X509CertificateGenerator.create({
    subject: 'CN=tlsscan Test Intermediate',
    issuer: rootCert.subject,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    serialNumber: '02',
    signingAlgorithm: rsa(2048),
    notBefore: new Date(now - 365 * DAY),
    notAfter: new Date(now + 1825 * DAY),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const intermediate = { cert: intermediateCert, keys: intermediateKeys, pem: intermediateCert.toString('pem') };

  async function leaf(options: LeafOptions = {}): Promise<Leaf> {
    const keys = await newKeys(options.bits ?? 2048);
    const names = options.names ?? ['localhost'];
    const hash = options.hash ?? 'SHA-256';
    const subject = `CN=${names[0]}`;
    const extensions: x509.Extension[] = [
      new x509.SubjectAlternativeNameExtension([
        ...names.map((value) => ({ type: 'dns' as const, value })),
        ...(options.ips ?? ['127.0.0.1']).map((value) => ({ type: 'ip' as const, value })),
      ]),
      new x509.BasicConstraintsExtension(false),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ];
    const notBefore = options.notBefore ?? new Date(now - DAY);
    const notAfter = options.notAfter ?? new Date(now + 365 * DAY);
    const cert = options.selfSigned
      ? await x509.X509CertificateGenerator.createSelfSigned({
          name: subject,
          keys,
          serialNumber: String(serial++),
          signingAlgorithm: rsa(2048, hash),
          notBefore,
          notAfter,
          extensions,
        })
      : await x509.X509CertificateGenerator.create({
          subject,
          issuer: intermediateCert.subject,
          publicKey: keys.publicKey,
          signingKey: await withHash(intermediateKeys.privateKey, hash),
          serialNumber: String(serial++),
          signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash },
          notBefore,
          notAfter,
          extensions: [...extensions, await x509.AuthorityKeyIdentifierExtension.create(intermediateKeys.publicKey)],
        });
    return { certPem: cert.toString('pem'), keyPem: await keyPem(keys), der: Buffer.from(cert.rawData) };
  }

  return { root, intermediate, leaf };
}

/** Writes a leaf's certificate, its key and the `chain` PEMs to send after it, for openssl s_server. */
export async function writeServerFiles(leaf: Leaf, chain: readonly string[] = []): Promise<{ args: string[]; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tlsscan-pki-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  await writeFile(cert, leaf.certPem);
  await writeFile(key, leaf.keyPem);
  const args = ['-cert', cert, '-key', key];
  if (chain.length > 0) {
    const chainFile = join(dir, 'chain.pem');
    await writeFile(chainFile, chain.join('\n'));
    args.push('-cert_chain', chainFile);
  }
  return { args, dir };
}

export const DAY_MS = DAY;
