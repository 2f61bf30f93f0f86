import { describe, expect, it } from 'vitest';
import { clientHelloRecord } from '../../engine-kit/src/tls/client-hello.ts';
import { judgeHsts } from '../../engine-kit/src/tls/hsts.ts';
import { HandshakeAssembler, NotTls, parseRecordHeader } from '../../engine-kit/src/tls/records.ts';
import { bitLength, dhGroupBits, parseServerHello } from '../../engine-kit/src/tls/server-hello.ts';
import { LEGACY_SUITES, SUITES, TLS13_SUITES, insecureReasons, suiteByCode } from '../../engine-kit/src/tls/suites.ts';
import { defaultStartTls } from '../../engine-kit/src/tls/starttls.ts';
import { formatTlsTarget, parseTlsTarget } from '../../engine-kit/src/tls/target.ts';
import { TlsScope } from '../src/scope.ts';

describe('suite table', () => {
  it('has one entry per code', () => {
    expect(new Set(SUITES.map((s) => s.code)).size).toBe(SUITES.length);
    expect(TLS13_SUITES.map((s) => s.name)).toEqual([
      'TLS_AES_128_GCM_SHA256',
      'TLS_AES_256_GCM_SHA384',
      'TLS_CHACHA20_POLY1305_SHA256',
      'TLS_AES_128_CCM_SHA256',
      'TLS_AES_128_CCM_8_SHA256',
    ]);
  });

  it.each([
    [0x0000, ['null', 'anonymous']],
    [0x0002, ['null']],
    [0x0003, ['export', 'rc4']],
    [0x0005, ['rc4']],
    [0x0009, ['single_des']],
    [0x0014, ['export', 'single_des']],
    [0x0034, ['anonymous']],
    [0xc015, ['null', 'anonymous']],
    [0x0064, ['export', 'rc4']],
    [0x000a, []],
    [0xc02f, []],
  ])('classifies suite %i as %j', (code, reasons) => {
    expect(insecureReasons(suiteByCode(code))).toEqual(reasons);
  });

  it('marks 64-bit blocks, forward secrecy and DHE from the names', () => {
    expect(suiteByCode(0x000a)).toMatchObject({ name: 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', block64: true, forwardSecret: false, dhe: false });
    expect(suiteByCode(0x0007)).toMatchObject({ block64: true });
    expect(suiteByCode(0x0016)).toMatchObject({ block64: true, forwardSecret: true, dhe: true });
    expect(suiteByCode(0xc030)).toMatchObject({ name: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', forwardSecret: true, dhe: false });
    expect(suiteByCode(0xccaa)).toMatchObject({ forwardSecret: true, dhe: true });
    expect(suiteByCode(0x1301)).toMatchObject({ tls13: true, forwardSecret: true });
    expect(suiteByCode(0xc051)).toMatchObject({ name: 'TLS_RSA_WITH_ARIA_256_GCM_SHA384', forwardSecret: false });
    expect(suiteByCode(0xc08b)).toMatchObject({ name: 'TLS_ECDHE_RSA_WITH_CAMELLIA_256_GCM_SHA384' });
    expect(suiteByCode(0x1234).name).toBe('TLS_UNKNOWN_0x1234');
  });
});

describe('records', () => {
  it('refuses what is not a TLS record, saying what arrived', () => {
    expect(() => parseRecordHeader(Buffer.from('HTTP/1.1 400'))).toThrow(/not a TLS record.*HTTP\/1\.1 400/);
    expect(() => parseRecordHeader(Buffer.from([22, 3, 3, 0xff, 0xff]))).toThrow(NotTls);
    expect(parseRecordHeader(Buffer.from([22, 3, 1, 0, 10]))).toEqual({ type: 22, version: 0x0301, length: 10 });
  });

  it('refuses a handshake message over its cap as soon as its header arrives', () => {
    const assembler = new HandshakeAssembler(1024);
    expect(() => assembler.push(Buffer.from([11, 0xff, 0, 0]))).toThrow(/16711680 bytes exceeds/);
  });

  it('reassembles messages split across records', () => {
    const assembler = new HandshakeAssembler(1024);
    expect(assembler.push(Buffer.from([14, 0, 0]))).toEqual([]);
    expect(assembler.push(Buffer.from([0, 2, 0, 0, 1]))).toEqual([{ type: 14, body: Buffer.alloc(0) }]);
    expect(assembler.push(Buffer.from([9]))).toEqual([{ type: 2, body: Buffer.from([9]) }]);
  });

  it('measures DH primes and reads a HelloRetryRequest', () => {
    expect(bitLength(Buffer.from([0, 0x01, 0xff]))).toBe(9);
    expect(dhGroupBits(Buffer.concat([Buffer.from([0, 128, 0x80]), Buffer.alloc(127)]))).toBe(1024);
    const hrr = Buffer.concat([
      Buffer.from([3, 3]),
      Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex'),
      Buffer.from([0, 0x13, 0x01, 0, 0, 6, 0, 43, 0, 2, 3, 4]),
    ]);
    expect(parseServerHello(hrr)).toMatchObject({ version: 0x0304, suite: 0x1301, helloRetry: true });
    expect(() => parseServerHello(hrr.subarray(0, 20))).toThrow(/truncated ServerHello/);
  });

  it('builds hellos that carry every offered suite', () => {
    const hello = clientHelloRecord({ version: 0x0303, suites: LEGACY_SUITES.map((s) => s.code), sni: 'example.com' });
    expect(hello.readUInt16BE(3)).toBe(hello.length - 5);
    expect(hello.includes(Buffer.from('example.com'))).toBe(true);
    const ssl3 = clientHelloRecord({ version: 0x0300, suites: [0x0005] });
    expect(ssl3.subarray(0, 3)).toEqual(Buffer.from([22, 3, 0]));
    expect(ssl3.includes(Buffer.from([0x00, 0x05, 0x00, 0xff]))).toBe(true);
  });
});

describe('HSTS', () => {
  it('judges the first Strict-Transport-Security header', () => {
    expect(judgeHsts('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n')).toEqual({ kind: 'missing', status: 200 });
    expect(judgeHsts('HTTP/1.1 301 Moved\r\nstrict-transport-security: max-age="31536000"; includeSubDomains\r\n\r\n')).toMatchObject({
      kind: 'ok',
      maxAge: 31536000,
    });
    expect(judgeHsts('HTTP/1.0 200 ok\r\nStrict-Transport-Security: max-age=86400\r\n\r\n')).toMatchObject({
      kind: 'short',
      maxAge: 86400,
    });
    // RFC 6797 §6.1.1: max-age is required; a header without it is ignored.
    expect(judgeHsts('HTTP/1.1 200 OK\r\nStrict-Transport-Security: includeSubDomains\r\n\r\n')).toMatchObject({
      kind: 'missing',
      invalid: 'it has no max-age directive',
    });
    expect(() => judgeHsts('SSH-2.0-OpenSSH\r\n\r\n')).toThrow(/not an HTTP response/);
  });
});

describe('target and scope', () => {
  it.each([
    ['example.com', 'example.com', 443],
    ['Mail.Example.com:25', 'mail.example.com', 25],
    ['[::1]:8443', '::1', 8443],
    ['::1', '::1', 443],
    ['127.0.0.1:993', '127.0.0.1', 993],
  ])('parses %s', (raw, host, port) => {
    expect(parseTlsTarget(raw)).toEqual({ ok: true, target: { host, port } });
  });

  it.each(['example.com:0', 'example.com:99999', 'exa mple.com', 'example.com:44a', '[example.com]:443', 'https://example.com'])(
    'refuses %s',
    (raw) => {
      expect(parseTlsTarget(raw).ok).toBe(false);
    },
  );

  it('formats targets back without the default port', () => {
    expect(formatTlsTarget({ host: '::1', port: 8443 })).toBe('[::1]:8443');
    expect(formatTlsTarget({ host: 'example.com', port: 443 })).toBe('example.com');
  });

  it('defaults STARTTLS from the mail ports', () => {
    expect([25, 587, 143, 110, 443, 465, 3389].map(defaultStartTls)).toEqual(['smtp', 'smtp', 'imap', 'pop3', 'none', 'none', 'rdp']);
  });

  it('accepts the §12 scope fields and nothing else', () => {
    expect(TlsScope.safeParse({ starttls: 'smtp', sni: 'mx.example.com', http: false }).success).toBe(true);
    expect(TlsScope.safeParse({ starttls: 'ftp' }).success).toBe(false);
    expect(TlsScope.safeParse({ extra_roots: 'not pem' }).success).toBe(false);
    expect(TlsScope.safeParse({ verify: false }).success).toBe(false);
  });
});
