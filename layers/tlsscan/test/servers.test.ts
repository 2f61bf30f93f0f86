import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { TLSSocket } from 'node:tls';
import { SMTPServer } from 'smtp-server';
import { DAY_MS, type Leaf, type TestPki, makeTestPki, writeServerFiles } from './helpers/pki.ts';
import { type RawServerConfig, startRawTlsServer } from './helpers/raw-tls-server.ts';
import { type LocalServer, failing, hasBinary, rule, scanLocal, startOpenSslServer, statuses } from './helpers/servers.ts';

/**
 * tlsscan against real servers: openssl s_server configurations, a Node HTTPS server (TLS 1.3 only,
 * with HSTS), the raw-record server for what OpenSSL 3 no longer serves, SMTP with and without
 * STARTTLS, and the broken peers of the bad-input cases.
 */
const servers: LocalServer[] = [];
let pki: TestPki;
let good: Leaf;

beforeAll(async () => {
  pki = await makeTestPki();
  good = await pki.leaf();
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function openssl(leaf: Leaf, chain: string[], args: string[]): Promise<number> {
  const files = await writeServerFiles(leaf, chain);
  const server = await startOpenSslServer([...files.args, ...args]);
  servers.push(server);
  return server.port;
}

async function raw(config: Omit<RawServerConfig, 'certificates'> & { certificates?: Buffer[] }): Promise<number> {
  const server = await startRawTlsServer({
    certificates: [good.der, Buffer.from(new X509Certificate(pki.intermediate.pem).raw)],
    ...config,
  });
  servers.push(server);
  return server.port;
}

const describeOpenSsl = hasBinary('openssl') ? describe : describe.skip;

describeOpenSsl('openssl s_server', () => {
  it('passes a modern server with its full chain, except for the missing HSTS of -www', async () => {
    const port = await openssl(good, [pki.intermediate.pem], []);
    const result = await scanLocal(port, { extraRoots: [pki.root.pem], http: true });
    expect(failing(result)).toEqual(['tls.cipher.no_forward_secrecy', 'tls.hsts.missing']);
    expect(rule(result, 'tls.cert.untrusted').detail).toContain('trusted via tlsscan Test Root');
    expect(rule(result, 'tls.hsts.missing').findings[0].evidence).toMatchObject({ status: 200, header: null });
    expect(statuses(result)['tls.starttls.unavailable']).toBe('skipped');
  });

  it('reads each defective leaf from the wire and reports its rule', async () => {
    const now = Date.now();
    const cases: Array<[string, Promise<Leaf>, string[], string[]]> = [
      [
        'expired',
        pki.leaf({ notBefore: new Date(now - 90 * DAY_MS), notAfter: new Date(now - DAY_MS) }),
        [pki.intermediate.pem],
        ['tls.cert.expired'],
      ],
      ['not yet valid', pki.leaf({ notBefore: new Date(now + 5 * DAY_MS) }), [pki.intermediate.pem], ['tls.cert.not_yet_valid']],
      ['self-signed', pki.leaf({ selfSigned: true }), [], ['tls.cert.untrusted']],
      ['wrong host', pki.leaf({ names: ['other.example'], ips: [] }), [pki.intermediate.pem], ['tls.cert.hostname_mismatch']],
      ['1024-bit', pki.leaf({ bits: 1024 }), [pki.intermediate.pem], ['tls.cert.weak_key']],
      ['SHA-1', pki.leaf({ hash: 'SHA-1' }), [pki.intermediate.pem], ['tls.cert.weak_signature']],
      ['no intermediate', Promise.resolve(good), [], ['tls.cert.untrusted', 'tls.cert.incomplete_chain']],
    ];
    const outcomes = await Promise.all(
      cases.map(async ([name, leaf, chain, expected]) => {
        // Security level 0 lets OpenSSL serve the 1024-bit and SHA-1 leaves at all.
        const port = await openssl(await leaf, chain, ['-cipher', 'ECDHE+AESGCM:@SECLEVEL=0', '-no_tls1_3']);
        const result = await scanLocal(port, { extraRoots: [pki.root.pem] });
        return [name, failing(result).filter((id) => id.startsWith('tls.cert.')), expected];
      }),
    );
    for (const [name, found, expected] of outcomes) expect(found, String(name)).toEqual(expected);
  });

  it('reports TLS 1.0/1.1, NULL and anonymous suites, RSA key exchange and a 1024-bit DH group', async () => {
    const { dhParams } = await import('./helpers/servers.ts');
    const port = await openssl(
      good,
      [pki.intermediate.pem],
      ['-cipher', 'ALL:COMPLEMENTOFALL:@SECLEVEL=0', '-dhparam', await dhParams(1024)],
    );
    const result = await scanLocal(port, { extraRoots: [pki.root.pem] });
    expect(failing(result)).toEqual([
      'tls.protocol.tls10',
      'tls.protocol.tls11',
      'tls.cipher.insecure',
      'tls.cipher.no_forward_secrecy',
      'tls.dh.weak_group',
    ]);
    expect(rule(result, 'tls.cipher.insecure').findings[0].evidence).toMatchObject({ categories: ['null', 'anonymous'] });
    expect(rule(result, 'tls.dh.weak_group').findings[0].evidence).toMatchObject({ group_bits: 1024 });
    expect(result.protocols.map((p) => [p.protocol, p.accepted])).toEqual([
      ['SSLv2', false],
      ['SSLv3', false],
      ['TLSv1.0', true],
      ['TLSv1.1', true],
      ['TLSv1.2', true],
      ['TLSv1.3', true],
    ]);
  });
});

describe('Node HTTPS server, TLS 1.3 only, with HSTS', () => {
  it('reads the certificate over Node TLS and passes HSTS, renegotiation and compression', async () => {
    const server = createHttpsServer(
      { key: good.keyPem, cert: `${good.certPem}\n${pki.intermediate.pem}`, minVersion: 'TLSv1.3' },
      (_req, res) => {
        res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
        res.end('ok');
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) });
    const result = await scanLocal((server.address() as AddressInfo).port, { extraRoots: [pki.root.pem], http: true });
    expect(failing(result)).toEqual([]);
    expect(Object.values(statuses(result)).filter((status) => status === 'error')).toEqual([]);
    expect(rule(result, 'tls.hsts.missing').detail).toContain('max-age=31536000');
    expect(rule(result, 'tls.renegotiation.insecure').detail).toContain('Only TLS 1.3');
  });
});

describe('raw-record server (what OpenSSL 3 no longer serves)', () => {
  it('reports SSLv2 and SSLv3, RC4, DES, 3DES and IDEA, compression, no RFC 5746 and Heartbleed', async () => {
    const port = await raw({
      versions: [0x0300, 0x0301, 0x0302, 0x0303],
      suites: [0x0005, 0x000a, 0x0009, 0x0007, 0x0016, 0x0004],
      sslv2: true,
      renegotiationInfo: false,
      compression: true,
      heartbeat: 'vulnerable',
      dhBits: 1024,
    });
    const result = await scanLocal(port, { extraRoots: [pki.root.pem] });
    expect(failing(result)).toEqual([
      'tls.protocol.sslv3',
      'tls.protocol.tls10',
      'tls.protocol.tls11',
      'tls.cipher.insecure',
      'tls.cipher.sweet32',
      'tls.cipher.no_forward_secrecy',
      'tls.dh.weak_group',
      'tls.renegotiation.insecure',
      'tls.compression.enabled',
      'tls.heartbleed',
    ]);
    expect(rule(result, 'tls.protocol.sslv3').findings[0].evidence).toMatchObject({ protocols: ['SSLv2', 'SSLv3'] });
    expect(rule(result, 'tls.heartbleed').findings[0].evidence).toMatchObject({ claimed_bytes: 16384, returned_bytes: 16384 });
    expect(rule(result, 'tls.cipher.sweet32').findings[0].evidence.suites_by_protocol).toMatchObject({
      SSLv3: ['TLS_RSA_WITH_IDEA_CBC_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA'],
    });
  });

  it('passes a patched heartbeat and secure renegotiation on an SSLv3/TLS 1.0 server with no modern protocol', async () => {
    const port = await raw({ versions: [0x0300, 0x0301], suites: [0x002f], heartbeat: 'patched' });
    const result = await scanLocal(port, { extraRoots: [pki.root.pem] });
    expect(failing(result)).toEqual([
      'tls.protocol.sslv3',
      'tls.protocol.tls10',
      'tls.protocol.no_modern',
      'tls.cipher.no_forward_secrecy',
    ]);
    expect(rule(result, 'tls.heartbleed').detail).toContain('echoed the well-formed one');
    expect(rule(result, 'tls.renegotiation.insecure').status).toBe('pass');
  });
});

describe('a warning alert before the ServerHello', () => {
  it('reads on past it instead of taking it for a refusal', async () => {
    const port = await raw({ versions: [0x0303], suites: [0xc02f], warnUnrecognizedName: true });
    const result = await scanLocal(port, { extraRoots: [pki.root.pem] });
    expect(result.protocols.find((p) => p.protocol === 'TLSv1.2')).toEqual({
      protocol: 'TLSv1.2',
      accepted: true,
      suites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
    });
    expect(failing(result)).toEqual([]);
  });
});

describe('SMTP STARTTLS', () => {
  async function smtp(hideSTARTTLS: boolean): Promise<number> {
    const server = new SMTPServer({
      key: good.keyPem,
      cert: `${good.certPem}\n${pki.intermediate.pem}`,
      hideSTARTTLS,
      authOptional: true,
      logger: false,
    });
    server.on('error', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    servers.push({ port, close: () => new Promise((resolve) => server.close(() => resolve())) });
    return port;
  }

  it('checks TLS after STARTTLS on a server that offers it', async () => {
    const result = await scanLocal(await smtp(false), { starttls: 'smtp', extraRoots: [pki.root.pem] });
    expect(statuses(result)).toMatchObject({
      'tls.starttls.unavailable': 'pass',
      'tls.protocol.no_modern': 'pass',
      'tls.cert.untrusted': 'pass',
    });
    expect(result.rules.filter((r) => r.status === 'error')).toEqual([]);
  });

  it('reports a server without STARTTLS and skips the TLS checks', async () => {
    const result = await scanLocal(await smtp(true), { starttls: 'smtp' });
    expect(failing(result)).toEqual(['tls.starttls.unavailable']);
    expect(rule(result, 'tls.starttls.unavailable').findings[0].evidence).toMatchObject({ protocol: 'smtp' });
    expect(rule(result, 'tls.cert.expired')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('does not offer STARTTLS'),
    });
  });
});

describe('IMAP and POP3 STARTTLS', () => {
  /** A minimal IMAP or POP3 server: greeting, capabilities, then TLS on the same socket. */
  async function mailServer(protocol: 'imap' | 'pop3', offersTls: boolean): Promise<number> {
    const server = createNetServer((socket) => {
      socket.on('error', () => {});
      socket.write(protocol === 'imap' ? '* OK IMAP4rev1 ready\r\n' : '+OK POP3 ready\r\n');
      let buffer = '';
      const onData = (chunk: Buffer): void => {
        buffer += chunk.toString('latin1');
        for (let at = buffer.indexOf('\r\n'); at >= 0; at = buffer.indexOf('\r\n')) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const [tag, command] = protocol === 'imap' ? line.split(' ') : ['', line];
          if (command === 'CAPABILITY')
            socket.write(`* CAPABILITY IMAP4rev1${offersTls ? ' STARTTLS' : ''} AUTH=PLAIN\r\n${tag} OK done\r\n`);
          else if (command === 'CAPA') socket.write(`+OK\r\nUSER\r\n${offersTls ? 'STLS\r\n' : ''}.\r\n`);
          else if (command === 'STARTTLS' || command === 'STLS') {
            socket.off('data', onData);
            socket.write(protocol === 'imap' ? `${tag} OK begin TLS\r\n` : '+OK begin TLS\r\n', () => {
              const secure = new TLSSocket(socket, { isServer: true, key: good.keyPem, cert: `${good.certPem}\n${pki.intermediate.pem}` });
              secure.on('error', () => {});
            });
            return;
          } else socket.write(protocol === 'imap' ? `${tag} BAD unknown\r\n` : '-ERR unknown\r\n');
        }
      };
      socket.on('data', onData);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    servers.push({ port, close: () => new Promise((resolve) => server.close(() => resolve())) });
    return port;
  }

  it.each(['imap', 'pop3'] as const)('%s: checks TLS after STARTTLS, and reports a server without it', async (protocol) => {
    const withTls = await scanLocal(await mailServer(protocol, true), { starttls: protocol, extraRoots: [pki.root.pem], concurrency: 2 });
    expect(statuses(withTls)).toMatchObject({
      'tls.starttls.unavailable': 'pass',
      'tls.protocol.no_modern': 'pass',
      'tls.cert.untrusted': 'pass',
    });
    expect(withTls.rules.filter((r) => r.status === 'error')).toEqual([]);
    const without = await scanLocal(await mailServer(protocol, false), { starttls: protocol });
    expect(failing(without)).toEqual(['tls.starttls.unavailable']);
  });
});

describe('bad input: a report with error checks, never a hang or a crash', () => {
  const allErrors = (result: Awaited<ReturnType<typeof scanLocal>>): string[] =>
    result.rules.filter((r) => r.status !== 'error' && r.status !== 'skipped').map((r) => `${r.rule_id}:${r.status}`);

  it('errors every check of a closed port, saying the connection was refused', async () => {
    const port = await raw({ versions: [], suites: [] });
    await servers.pop()!.close();
    const result = await scanLocal(port);
    expect(allErrors(result)).toEqual([]);
    expect(rule(result, 'tls.protocol.tls10').detail).toMatch(/ECONNREFUSED/);
  });

  it('errors on an address that does not answer, by the deadline', async () => {
    const result = await scanLocal(443, { address: { address: '192.0.2.1', family: 4, vetted: true }, seconds: 2 });
    expect(allErrors(result)).toEqual([]);
  });

  it('ends at the deadline when a server stalls for longer than a read may wait', async () => {
    const port = await raw({ versions: [0x0303], suites: [0xc02f], behaviour: 'stall' });
    const result = await scanLocal(port, { seconds: 2 });
    expect(allErrors(result)).toEqual([]);
    expect(rule(result, 'tls.protocol.tls11').detail).toMatch(/the scan's deadline passed/);
  });

  it.each([
    ['stall', /no complete answer within 1500 ms/],
    ['stall-after-hello', /deadline passed|no complete answer/],
    ['garbage', /not a TLS record/],
    ['banner', /not a TLS record .*SSH-2/],
    ['huge-certificate', /16777215 bytes exceeds/],
  ] as const)('errors with a reason on a server that answers with %s', async (behaviour, reason) => {
    const port = await raw({ versions: [0x0303], suites: [0xc02f], behaviour });
    const result = await scanLocal(port, { seconds: 3, readTimeoutMs: 1500 });
    const errors = result.rules.filter((r) => r.status === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(failing(result)).toEqual([]);
    expect(errors.map((r) => r.detail).join('\n')).toMatch(reason);
  });
});
