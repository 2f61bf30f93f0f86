import { type Server, createServer as createHttpServer } from 'node:http';
import { type AddressInfo, type Server as NetServer, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapBounded } from '../../../lib/concurrency.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';

/**
 * Issue 33 item 6: only a well-formed OSV answer is read. `[]`, `{"error": …}`, records without a
 * string id, and more records than a package can have are `error` on vm.vulnerable_version, never
 * "no known vulnerability" (or a finding named "undefined"). The built netscan CLI in vm mode
 * against a MySQL greeting and a loopback OSV-shaped server answering each case.
 */
const MYSQL_GREETING = (() => {
  const payload = Buffer.concat([Buffer.from([0x0a]), Buffer.from('8.0.36\0', 'latin1'), Buffer.alloc(40, 0x41)]);
  return Buffer.concat([Buffer.from([payload.length, 0, 0, 0]), payload]);
})();

const ANSWERS: Record<string, string> = {
  'an array': '[]',
  'an error object': '{"error":"rate limited"}',
  'a record without an id': '{"vulns":[{"summary":"no id here"}]}',
  'a record whose id is a number': '{"vulns":[{"id":7}]}',
  'a next_page_token that is not a string': '{"vulns":[],"next_page_token":5}',
  'fifty thousand empty records': `{"vulns":[${Array.from({ length: 50_000 }, () => '{}').join(',')}]}`,
};

let mysql: NetServer;
let mysqlPort: number;
const servers: Server[] = [];

beforeAll(async () => {
  mysql = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(MYSQL_GREETING);
  });
  await new Promise<void>((resolve) => mysql.listen(0, '127.0.0.1', resolve));
  mysqlPort = (mysql.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => mysql.close(resolve));
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function osvAnswering(body: string): Promise<string> {
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('netscan vm against malformed OSV answers', () => {
  it('reports vm.vulnerable_version as error for every malformed answer', async () => {
    const rows = await mapBounded(Object.entries(ANSWERS), 3, async ([name, body]) => {
      const url = await osvAnswering(body);
      const { report } = await scanWithEngine(
        'netscan',
        '127.0.0.1',
        { ports: String(mysqlPort), mode: 'vm' },
        { env: { NETSCAN_OSV_URL: url, NETSCAN_OSV_UPSTREAM_ECOSYSTEM: 'Upstream' } },
      );
      return { name, status: report.checks.find((check) => check.id === 'vm.vulnerable_version')?.status };
    });
    expect(rows.filter((row) => row.status !== 'error')).toEqual([]);
  }, 120_000);

  it('words a version as what the banner announces, and caps the findings of one report', async () => {
    const many = Array.from({ length: 700 }, (_, i) => ({ id: `OSV-TEST-${i}`, summary: 'a record', affected: [] }));
    const url = await osvAnswering(JSON.stringify({ vulns: many }));
    const { report } = await scanWithEngine(
      'netscan',
      '127.0.0.1',
      { ports: String(mysqlPort), mode: 'vm' },
      { env: { NETSCAN_OSV_URL: url, NETSCAN_OSV_UPSTREAM_ECOSYSTEM: 'Upstream' } },
    );
    const findings = report.findings.filter((finding) => finding.rule_id === 'vm.vulnerable_version');
    expect(findings.length).toBe(500);
    expect(findings[0].detail).toMatch(/announces MySQL 8\.0\.36 in its banner/);
    expect(findings[0].evidence).toMatchObject({ version_source: 'banner' });
    expect(report.errors.map((error) => error.message).join(' ')).toMatch(/700 .*500/);
  }, 60_000);

  it('still reads a well-formed empty answer as no known vulnerability', async () => {
    const url = await osvAnswering('{}');
    const { report } = await scanWithEngine(
      'netscan',
      '127.0.0.1',
      { ports: String(mysqlPort), mode: 'vm' },
      { env: { NETSCAN_OSV_URL: url, NETSCAN_OSV_UPSTREAM_ECOSYSTEM: 'Upstream' } },
    );
    expect(report.checks.find((check) => check.id === 'vm.vulnerable_version')?.status).toBe('pass');
  }, 60_000);
});
