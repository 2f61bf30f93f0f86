import { beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { evaluateChain } from '../../engine-kit/src/tls/certificate.ts';
import { DAY_MS, makeTestPki, type TestPki } from './helpers/pki.ts';

let pki: TestPki;
const der = (pem: string): Buffer => Buffer.from(new X509Certificate(pem).raw);

beforeAll(async () => {
  pki = await makeTestPki();
});

function rulesOf(chain: Buffer[], host = 'localhost', extraRoots = [pki.root.pem]): string[] {
  return evaluateChain({ chain, host, extraRoots, now: new Date() })
    .problems.map((p) => p.rule)
    .sort();
}

describe('evaluateChain', () => {
  it('passes a full chain to a root given in extra_roots', async () => {
    const leaf = await pki.leaf();
    const report = evaluateChain({
      chain: [leaf.der, der(pki.intermediate.pem)],
      host: 'localhost',
      extraRoots: [pki.root.pem],
      now: new Date(),
    });
    expect(report.problems).toEqual([]);
    expect(report.trustedBy).toBe('tlsscan Test Root');
  });

  it('does not trust the test root without extra_roots (Mozilla roots only)', async () => {
    const leaf = await pki.leaf();
    expect(rulesOf([leaf.der, der(pki.intermediate.pem)], 'localhost', [])).toEqual(['tls.cert.incomplete_chain', 'tls.cert.untrusted']);
  });

  it('reports a missing intermediate as incomplete and unverifiable', async () => {
    const leaf = await pki.leaf();
    expect(rulesOf([leaf.der])).toEqual(['tls.cert.incomplete_chain', 'tls.cert.untrusted']);
  });

  it('reports an expired leaf, and one expiring within 30 days', async () => {
    const expired = await pki.leaf({ notBefore: new Date(Date.now() - 90 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    expect(rulesOf([expired.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.expired']);
    const soon = await pki.leaf({ notAfter: new Date(Date.now() + 10 * DAY_MS) });
    expect(rulesOf([soon.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.expires_soon']);
  });

  it('reports a leaf that is not yet valid', async () => {
    const future = await pki.leaf({ notBefore: new Date(Date.now() + 10 * DAY_MS), notAfter: new Date(Date.now() + 400 * DAY_MS) });
    expect(rulesOf([future.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.not_yet_valid']);
  });

  it('reports a self-signed leaf as untrusted but not incomplete', async () => {
    const self = await pki.leaf({ selfSigned: true });
    expect(rulesOf([self.der])).toEqual(['tls.cert.untrusted']);
  });

  it('reports a host the certificate does not name', async () => {
    const other = await pki.leaf({ names: ['other.example'], ips: [] });
    expect(rulesOf([other.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.hostname_mismatch']);
    expect(rulesOf([other.der, der(pki.intermediate.pem)], 'other.example')).toEqual([]);
  });

  it('matches IP targets against IP SANs only', async () => {
    const leaf = await pki.leaf({ names: ['127.0.0.1'], ips: ['127.0.0.2'] });
    expect(rulesOf([leaf.der, der(pki.intermediate.pem)], '127.0.0.1')).toEqual(['tls.cert.hostname_mismatch']);
    expect(rulesOf([leaf.der, der(pki.intermediate.pem)], '127.0.0.2')).toEqual([]);
  });

  it('reports a 1024-bit key and a SHA-1 signature', async () => {
    const small = await pki.leaf({ bits: 1024 });
    expect(rulesOf([small.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.weak_key']);
    const sha1 = await pki.leaf({ hash: 'SHA-1' });
    expect(rulesOf([sha1.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.weak_signature']);
  });

  it('reports a certificate whose signature does not verify with the sent issuer', async () => {
    const impostor = await makeTestPki();
    const leaf = await impostor.leaf();
    // Same issuer name, different key: the sent intermediate is not the one that signed the leaf.
    expect(rulesOf([leaf.der, der(pki.intermediate.pem)])).toEqual(['tls.cert.untrusted']);
  });

  it('throws on bytes that are not a certificate', () => {
    expect(() => evaluateChain({ chain: [Buffer.from('not a certificate')], host: 'localhost', now: new Date() })).toThrow();
  });
});
