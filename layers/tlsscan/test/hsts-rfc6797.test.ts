import { type Server, type TLSSocket, createServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapBounded } from '../../../lib/concurrency.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { type TestPki, makeTestPki } from './helpers/pki.ts';

/**
 * Issue 33 item 4: the Strict-Transport-Security header as RFC 6797 §6.1 and §8.1 define it. A
 * header that breaks the grammar (a directive twice, an unterminated quoted-string, a name that is
 * not a token) or has no max-age is ignored by browsers, so HSTS is missing; an obs-folded header
 * is unfolded first (RFC 9112 §5.2); interim 1xx responses are skipped for the final one. A TLS
 * server on loopback answers `GET /` with the exact bytes of each case; the built CLI scans it.
 */
const YEAR = 'max-age=31536000';
const cases: Array<{ name: string; response: string; expected: 'pass' | 'fail' }> = [
  { name: 'a valid header', response: `HTTP/1.1 200 OK\r\nStrict-Transport-Security: ${YEAR}; includeSubDomains\r\n`, expected: 'pass' },
  { name: 'max-age twice', response: `HTTP/1.1 200 OK\r\nStrict-Transport-Security: ${YEAR}; max-age=31536000\r\n`, expected: 'fail' },
  { name: 'an unterminated quote', response: 'HTTP/1.1 200 OK\r\nStrict-Transport-Security: max-age="31536000\r\n', expected: 'fail' },
  {
    name: 'a directive that is not a token',
    response: `HTTP/1.1 200 OK\r\nStrict-Transport-Security: ${YEAR}; include@SubDomains\r\n`,
    expected: 'fail',
  },
  {
    name: 'an obs-folded header',
    response: `HTTP/1.1 200 OK\r\nStrict-Transport-Security:\r\n ${YEAR};\r\n\tincludeSubDomains\r\n`,
    expected: 'pass',
  },
  {
    name: 'a 103 before the final response',
    response: `HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nStrict-Transport-Security: ${YEAR}\r\n`,
    expected: 'pass',
  },
  {
    name: 'HSTS on the 100 only',
    response: `HTTP/1.1 100 Continue\r\nStrict-Transport-Security: ${YEAR}\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n`,
    expected: 'fail',
  },
];

let pki: TestPki;
const servers: Server[] = [];

beforeAll(async () => {
  pki = await makeTestPki();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(response: string): Promise<number> {
  const leaf = await pki.leaf();
  const server = createServer({ cert: `${leaf.certPem}\n${pki.intermediate.pem}`, key: leaf.keyPem }, (socket: TLSSocket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end(`${response}Content-Length: 0\r\nConnection: close\r\n\r\n`));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('tlsscan HSTS per RFC 6797', () => {
  it('judges each header as a browser would', async () => {
    const rows = await mapBounded(cases, 3, async (entry) => {
      const port = await serve(entry.response);
      const { report } = await scanWithEngine('tlsscan', `localhost:${port}`, { http: true, extra_roots: pki.root.pem });
      const check = report.checks.find((c) => c.id === 'tls.hsts.missing')!;
      return { name: entry.name, status: check.status, expected: entry.expected };
    });
    expect(rows.filter((row) => row.status !== row.expected)).toEqual([]);
  }, 120_000);
});
