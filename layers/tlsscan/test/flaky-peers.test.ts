import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStatuses, scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { type TestPki, makeTestPki } from './helpers/pki.ts';
import { type ClientHello, type RawServer, type RawServerConfig, startRawTlsServer } from './helpers/raw-tls-server.ts';

/**
 * Issue 33 item 1: a close or a reset is not a refusal. Only an alert or a ServerHello of a lower
 * version refuses a hello; a connection cut before the answer is retried, and when it stays cut
 * the rule is `error`. A ServerHello the client could not have asked for (a suite it did not
 * offer, a version above its own) is a broken peer, never a refusal. The built CLI against the
 * raw-record server, misbehaving per hello.
 */
const TLS10 = 0x0301;
const TLS12 = 0x0303;
const SUPPORTED_VERSIONS = 43;
const isTls13Hello = (hello: ClientHello): boolean => hello.extensions.has(SUPPORTED_VERSIONS);

let pki: TestPki;
let certificates: Buffer[];
const servers: RawServer[] = [];

beforeAll(async () => {
  pki = await makeTestPki();
  certificates = [(await pki.leaf()).der, Buffer.from(new X509Certificate(pki.intermediate.pem).raw)];
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function scan(config: Omit<RawServerConfig, 'certificates'>): Promise<Record<string, string>> {
  const server = await startRawTlsServer({ certificates, ...config });
  servers.push(server);
  const { report } = await scanWithEngine('tlsscan', `localhost:${server.port}`, { extra_roots: pki.root.pem });
  return checkStatuses(report);
}

describe('tlsscan against peers that cut connections', () => {
  it('reports TLS 1.0 as error, not refused, when every TLS 1.0 hello is reset', async () => {
    const checks = await scan({
      versions: [TLS10, TLS12],
      suites: [0xc02f],
      misbehave: (hello) => (hello.version === TLS10 ? 'reset' : undefined),
    });
    expect(checks['tls.protocol.tls10']).toBe('error');
  });

  it('finds TLS 1.0 accepted when only the first TLS 1.0 hello is reset (the probe is retried)', async () => {
    let cut = false;
    const checks = await scan({
      versions: [TLS10, TLS12],
      suites: [0xc02f],
      misbehave: (hello) => (hello.version === TLS10 && !cut ? ((cut = true), 'reset') : undefined),
    });
    expect(checks['tls.protocol.tls10']).toBe('fail');
  });

  it('reports TLS 1.0 as error when the server closes without an alert', async () => {
    const checks = await scan({
      versions: [TLS10, TLS12],
      suites: [0xc02f],
      misbehave: (hello) => (hello.version === TLS10 ? 'close' : undefined),
    });
    expect(checks['tls.protocol.tls10']).toBe('error');
  });

  it('reports no_modern as error, not a finding, when the TLS 1.2 and 1.3 hellos are reset', async () => {
    const checks = await scan({
      versions: [TLS10, TLS12],
      suites: [0xc02f],
      misbehave: (hello) => (hello.version === TLS12 || isTls13Hello(hello) ? 'reset' : undefined),
    });
    expect(checks['tls.protocol.no_modern']).toBe('error');
  });

  it('reports the suite rules as error when the narrowing hellos are reset', async () => {
    // The first hello (every suite) is answered; each narrower one is reset, so RC4 is never seen.
    const checks = await scan({
      versions: [TLS12],
      suites: [0xc02f, 0x0005],
      misbehave: (hello) => (hello.suites.includes(0xc02f) ? undefined : 'reset'),
    });
    expect(checks['tls.cipher.insecure']).toBe('error');
    expect(checks['tls.cipher.no_forward_secrecy']).toBe('error');
  });

  it('reports error, not a refusal, for a ServerHello naming a suite that was not offered', async () => {
    const checks = await scan({
      versions: [TLS10, TLS12],
      suites: [0xc02f],
      misbehave: (hello) => (hello.version === TLS10 ? { suite: 0x1301 } : undefined),
    });
    expect(checks['tls.protocol.tls10']).toBe('error');
  });

  it('reports error, not a refusal, for a ServerHello naming a version above the one offered', async () => {
    const checks = await scan({
      versions: [TLS10, TLS12],
      suites: [0xc02f],
      misbehave: (hello) => (hello.version === TLS10 ? { version: 0x0305 } : undefined),
    });
    expect(checks['tls.protocol.tls10']).toBe('error');
  });
});
