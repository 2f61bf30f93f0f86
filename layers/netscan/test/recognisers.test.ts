import { describe, expect, it } from 'vitest';
import { decodeBson, encodeBson } from '../src/probe/bson.ts';
import { recogniseMysql, recogniseSsh, recogniseTelnet, recogniseTextGreeting, recogniseVnc } from '../src/probe/greetings.ts';
import { parseHttpResponse } from '../src/probe/http-response.ts';
import { opMsg, parseOpMsgReply } from '../src/probe/mongodb-wire.ts';
import {
  identifyHttp,
  identifyRedis,
  parseMemcachedStats,
  parseMemcachedVersion,
  parsePgError,
  parseRdpConfirm,
  parseRespReply,
} from '../src/probe/queries.ts';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('speak-first recognisers', () => {
  it('reads product, version and comment from an SSH banner', () => {
    expect(recogniseSsh(bytes('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10\r\n'))).toMatchObject({
      service: 'ssh',
      product: 'OpenSSH',
      version: '9.2p1',
      details: { protocol: '2.0', comment: 'Debian-2+deb12u10' },
    });
    expect(recogniseSsh(bytes('SSH-2.0-dropbear_2022.83\r\n'))).toMatchObject({ product: 'dropbear', version: '2022.83' });
    expect(recogniseSsh(bytes('SSH-2.0-Open'))).toBe('more');
    expect(recogniseSsh(bytes('HTTP/1.1 400'))).toBeNull();
  });

  it('knows telnet by its option negotiation and VNC by its RFB version', () => {
    expect(recogniseTelnet(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfb, 0x01]))).toMatchObject({ service: 'telnet' });
    expect(recogniseTelnet(bytes('220 hi'))).toBeNull();
    expect(recogniseVnc(bytes('RFB 003.008\n'))).toMatchObject({ service: 'vnc', details: { protocol: '3.8' } });
    expect(recogniseVnc(bytes('RFB 00'))).toBe('more');
  });

  it('reads MySQL and MariaDB handshakes and the host-refused error packet', () => {
    const handshake = (version: string) => {
      const payload = Buffer.concat([
        Buffer.from([10]),
        bytes(version),
        Buffer.from([0]),
        Buffer.alloc(4),
        Buffer.alloc(8),
        Buffer.from([0, 0xff, 0xff]),
      ]);
      const header = Buffer.from([payload.length & 0xff, payload.length >> 8, 0, 0]);
      return Buffer.concat([header, payload]);
    };
    expect(recogniseMysql(handshake('8.0.36'))).toMatchObject({ service: 'mysql', product: 'MySQL', version: '8.0.36', offersTls: true });
    expect(recogniseMysql(handshake('5.5.5-10.11.6-MariaDB-0+deb12u1'))).toMatchObject({ product: 'MariaDB', version: '10.11.6' });
    const message = bytes("Host '10.0.0.9' is not allowed to connect to this MySQL server");
    const refused = Buffer.concat([Buffer.from([message.length + 3, 0, 0, 0, 0xff, 0x6a, 0x04]), message]);
    expect(recogniseMysql(refused)).toMatchObject({ service: 'mysql', details: { error_code: 1130 } });
    expect(recogniseMysql(bytes('SSH-2.0-x\r\n'))).toBeNull();
  });

  it('classifies 220 greetings and waits for the end of a multi-line one', () => {
    expect(recogniseTextGreeting(bytes('220 mx.example ESMTP Postfix\r\n'))).toMatchObject({ kind: 'smtp' });
    expect(recogniseTextGreeting(bytes('220 (vsFTPd 3.0.3)\r\n'))).toMatchObject({ kind: 'ftp' });
    expect(recogniseTextGreeting(bytes('220 welcome\r\n'))).toMatchObject({ kind: 'ambiguous' });
    expect(recogniseTextGreeting(bytes('220-first\r\n'))).toBe('more');
    expect(recogniseTextGreeting(bytes('+OK Dovecot ready.\r\n'))).toMatchObject({ kind: 'pop3' });
    expect(recogniseTextGreeting(bytes('* OK [CAPABILITY IMAP4rev1 STARTTLS] ready\r\n'))).toMatchObject({ kind: 'imap' });
  });
});

describe('client-first recognisers', () => {
  it('tells Docker, Elasticsearch and a web server apart by their HTTP answers', () => {
    const docker = parseHttpResponse(
      bytes('HTTP/1.1 404 Not Found\r\nApi-Version: 1.43\r\nServer: Docker/24.0.7 (linux)\r\nContent-Length: 2\r\n\r\n{}'),
      false,
    );
    expect(docker !== null && docker !== 'more' && identifyHttp(docker, false)).toMatchObject({ service: 'docker', version: '24.0.7' });
    const body = JSON.stringify({ name: 'n1', cluster_name: 'c', version: { number: '8.11.1' }, tagline: 'You Know, for Search' });
    const elastic = parseHttpResponse(
      bytes(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`),
      false,
    );
    expect(elastic !== null && elastic !== 'more' && identifyHttp(elastic, false)).toMatchObject({
      service: 'elasticsearch',
      version: '8.11.1',
    });
    const nginx = parseHttpResponse(bytes('HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\n\r\nhello'), true);
    expect(nginx !== null && nginx !== 'more' && identifyHttp(nginx, true)).toMatchObject({
      service: 'http',
      tls: true,
      product: 'nginx',
      version: '1.22.1',
    });
    expect(parseHttpResponse(bytes('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), false)).toBe('more');
  });

  it('reads Redis INFO answers and refusals', () => {
    const info = '# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n';
    const reply = parseRespReply(bytes(`$${info.length}\r\n${info}\r\n`), false);
    expect(reply !== null && reply !== 'more' && identifyRedis(reply)).toMatchObject({
      version: '7.0.15',
      details: { info_answered: true },
    });
    const noauth = parseRespReply(bytes('-NOAUTH Authentication required.\r\n'), false);
    expect(noauth !== null && noauth !== 'more' && identifyRedis(noauth)).toMatchObject({
      service: 'redis',
      details: { info_answered: false },
    });
    expect(parseRespReply(bytes('$100\r\nabc'), false)).toBe('more');
  });

  it('reads memcached version and stats', () => {
    expect(parseMemcachedVersion(bytes('VERSION 1.6.21\r\n'), false)).toMatchObject({ service: 'memcached', version: '1.6.21' });
    expect(parseMemcachedVersion(bytes('ERROR\r\n'), false)).toBeNull();
    const stats = parseMemcachedStats(bytes('STAT pid 1\r\nSTAT curr_items 3\r\nEND\r\n'), false);
    expect(stats instanceof Map && stats.get('curr_items')).toBe('3');
  });

  it('reads a PostgreSQL ErrorResponse and an RDP connection confirm', () => {
    const fields = 'SFATAL\0VFATAL\0C0A000\0Munsupported frontend protocol 0.0: server supports 3.0 to 3.0\0\0';
    const error = Buffer.concat([bytes('E'), Buffer.from([0, 0, 0, fields.length + 4]), bytes(fields)]);
    const parsed = parsePgError(error, false);
    expect(parsed instanceof Map && parsed.get('C')).toBe('0A000');
    const confirm = Buffer.from([0x03, 0, 0, 0x13, 0x0e, 0xd0, 0, 0, 0x12, 0x34, 0, 0x02, 0x00, 0x08, 0x00, 0x02, 0, 0, 0]);
    expect(parseRdpConfirm(confirm, false)).toMatchObject({ service: 'rdp', details: { security: 'CredSSP (NLA)' } });
  });

  it('round-trips BSON and OP_MSG', () => {
    const doc = { hello: 1, $db: 'admin', nested: { ok: true, ratio: 0.5 } };
    expect(decodeBson(encodeBson(doc))[0]).toEqual(doc);
    const message = opMsg(7, { ok: 1, maxWireVersion: 21 });
    // A reply to request 7 has responseTo 7 in the header.
    message.writeInt32LE(7, 8);
    expect(parseOpMsgReply(message, 7)).toEqual({ ok: 1, maxWireVersion: 21 });
    expect(parseOpMsgReply(message, 8)).toBeNull();
  });
});
