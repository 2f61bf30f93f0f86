import 'reflect-metadata/lite';
import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * The test CA of m365scan's loopback servers, made at test time (no private key committed): a
 * root, one server certificate for every host name the fixtures serve (and 127.0.0.1), and ADFS
 * token-signing certificates with a chosen end (one expiring in 10 days).
 */
const DAY = 86_400_000;
const EC: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGN: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

export interface TestCa {
  rootPem: string;
  /** A server certificate and key for `names` (DNS) and 127.0.0.1. */
  server(names: readonly string[]): Promise<{ certPem: string; keyPem: string }>;
  /** A token-signing certificate ending `daysLeft` days from now (negative: expired). Base64 DER, as metadata carries it. */
  tokenSigning(subject: string, daysLeft: number): Promise<string>;
}

export async function makeTestCa(now = Date.now()): Promise<TestCa> {
  x509.cryptoProvider.set(crypto);
  const rootKeys = await crypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=m365scan Test Root',
    keys: rootKeys,
    serialNumber: '01',
    signingAlgorithm: SIGN,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  let serial = 2;
  async function issue(
    subject: string,
    notAfter: Date,
    extensions: x509.Extension[],
  ): Promise<{ cert: x509.X509Certificate; keys: webcrypto.CryptoKeyPair }> {
    const keys = await crypto.subtle.generateKey(EC, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.create({
      subject,
      issuer: root.subject,
      publicKey: keys.publicKey,
      signingKey: rootKeys.privateKey,
      serialNumber: (serial++).toString(16).padStart(2, '0'),
      signingAlgorithm: SIGN,
      notBefore: new Date(Math.min(now - DAY, notAfter.getTime() - DAY)),
      notAfter,
      extensions: [...extensions, await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey)],
    });
    return { cert, keys };
  }
  return {
    rootPem: root.toString('pem'),
    async server(names) {
      const { cert, keys } = await issue(`CN=${names[0]}`, new Date(now + 365 * DAY), [
        new x509.SubjectAlternativeNameExtension([
          ...names.map((value) => ({ type: 'dns' as const, value })),
          { type: 'ip', value: '127.0.0.1' },
        ]),
        new x509.BasicConstraintsExtension(false),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ]);
      const keyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
      return { certPem: cert.toString('pem'), keyPem };
    },
    async tokenSigning(subject, daysLeft) {
      const { cert } = await issue(`CN=${subject}`, new Date(now + daysLeft * DAY), [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ]);
      return Buffer.from(cert.rawData).toString('base64');
    },
  };
}
