import { readFileSync } from 'node:fs';
import { type Server, createServer as createHttpServer } from 'node:http';
import { type AddressInfo, type Server as NetServer, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapBounded } from '../../../lib/concurrency.ts';
import type { EngineReport } from '../../../lib/report.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { type NvdMode, type NvdServer, startNvdServer } from './helpers/nvd-server.ts';

/**
 * Issue 33 item 11: vm finds what it should. The built netscan CLI in vm mode against loopback
 * services announcing versions, a loopback NVD CVE API 2.0 serving real CVE records (whose match
 * is looser than NVD's, so the engine's own range re-check decides) and a loopback OSV service
 * answering Debian's DSA-4280-1 for every openssh query (so Debian's version order decides).
 * Before: OpenSSH, Apache httpd and every product without an OSV ecosystem were "not looked up".
 */
const DSA_4280_1 = JSON.parse(readFileSync(new URL('./fixtures/osv/DSA-4280-1.json', import.meta.url), 'utf8')) as object;
const UNRELATED = {
  id: 'DSA-0000-1',
  summary: 'a record for another package the service matched by mistake',
  affected: [
    { package: { ecosystem: 'Debian:9', name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '9' }] }] },
  ],
};

const listeners: NetServer[] = [];
const httpServers: Server[] = [];
const nvds: NvdServer[] = [];
const osvQueries: { package: { name: string; ecosystem: string }; version: string }[] = [];
let osvUrl: string;

async function greeting(text: string): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(text);
  });
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function webServer(serverHeader: string): Promise<number> {
  const server = createHttpServer((request, response) => response.writeHead(200, { server: serverHeader }).end('ok'));
  httpServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function nvd(mode: NvdMode = 'ok'): Promise<NvdServer> {
  const server = await startNvdServer(mode);
  nvds.push(server);
  return server;
}

beforeAll(async () => {
  const osv = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const query = JSON.parse(body) as (typeof osvQueries)[number];
      osvQueries.push(query);
      const vulns = query.package.name === 'openssh' ? [DSA_4280_1, UNRELATED] : [];
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ vulns }));
    });
  });
  httpServers.push(osv);
  await new Promise<void>((resolve) => osv.listen(0, '127.0.0.1', resolve));
  osvUrl = `http://127.0.0.1:${(osv.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all([
    ...listeners.map((server) => new Promise((resolve) => server.close(resolve))),
    ...httpServers.map((server) => new Promise((resolve) => server.close(resolve))),
    ...nvds.map((server) => server.close()),
  ]);
});

async function vm(port: number, env: Record<string, string>): Promise<{ report: EngineReport; stdout: string }> {
  const { report, run } = await scanWithEngine('netscan', '127.0.0.1', { ports: String(port), mode: 'vm' }, { env });
  return { report, stdout: run.stdout };
}
const check = (report: EngineReport) => report.checks.find((c) => c.id === 'vm.vulnerable_version');
const vulnerable = (report: EngineReport) => report.findings.filter((f) => f.rule_id === 'vm.vulnerable_version');
const cves = (report: EngineReport) =>
  vulnerable(report)
    .map((f) => [(f.evidence.ids as string[])[0], f.severity])
    .sort();

describe('netscan vm: upstream versions through the NVD CVE API 2.0', () => {
  it('reports the CVEs whose ranges hold the announced OpenSSH 7.4p1, paging and sending the key', async () => {
    const service = await nvd();
    const port = await greeting('SSH-2.0-OpenSSH_7.4p1\r\n');
    const { report, stdout } = await vm(port, { NETSCAN_NVD_URL: service.url, NETSCAN_NVD_KEY: 'operator-nvd-key-0123' });

    // CVE-2016-10009 (≤ 7.3) and CVE-2024-6387 (< 4.4, 8.5p1, 8.6–9.8) are served too, and left out.
    expect(cves(report)).toEqual([
      ['CVE-2018-15473', 'medium'],
      ['CVE-2023-38408', 'critical'],
    ]);
    const enumeration = vulnerable(report).find((f) => (f.evidence.ids as string[])[0] === 'CVE-2018-15473')!;
    expect(enumeration.detail).toMatch(/announces OpenSSH 7\.4p1 in its banner, within openssh ≤ 7\.7/);
    expect(enumeration.evidence).toMatchObject({
      version_source: 'banner',
      source: 'nvd',
      cpe: 'cpe:2.3:a:openbsd:openssh:7.4:p1:*:*:*:*:*:*',
      cvss_v3: { vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', score: 5.3, source: 'nvd@nist.gov' },
    });
    expect(vulnerable(report).find((f) => (f.evidence.ids as string[])[0] === 'CVE-2023-38408')?.evidence.fixed).toEqual(['9.3']);
    // Four OpenSSH records at the server's two a page: two pages, each asked with the key.
    expect(service.requests.map((r) => [r.virtualMatchString, r.startIndex, r.apiKey])).toEqual([
      ['cpe:2.3:a:openbsd:openssh:7.4:p1:*:*:*:*:*:*', '0', 'operator-nvd-key-0123'],
      ['cpe:2.3:a:openbsd:openssh:7.4:p1:*:*:*:*:*:*', '2', 'operator-nvd-key-0123'],
    ]);
    expect(stdout).not.toContain('operator-nvd-key-0123');
  }, 60_000);

  it('reports nothing for a version outside every range, and an exact-version CVE of Apache httpd', async () => {
    const service = await nvd();
    const [ssh, apache] = await Promise.all([greeting('SSH-2.0-OpenSSH_9.9p1\r\n'), webServer('Apache/2.4.49 (Unix)')]);
    const [newer, traversal] = await Promise.all([vm(ssh, { NETSCAN_NVD_URL: service.url }), vm(apache, { NETSCAN_NVD_URL: service.url })]);
    expect(cves(newer.report)).toEqual([]);
    expect(check(newer.report)).toMatchObject({
      status: 'pass',
      detail: expect.stringMatching(
        /4 CVEs NVD matched to OpenSSH 9\.9p1 left out: their version ranges exclude it \(CVE-2016-10009, CVE-2018-15473, CVE-2023-38408, CVE-2024-6387\)/,
      ),
    });
    expect(cves(traversal.report)).toEqual([['CVE-2021-41773', 'high']]);
    expect(service.requests.map((r) => r.virtualMatchString)).toContain('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*');
  }, 60_000);

  it('never looks a distribution build up by its upstream version', async () => {
    const service = await nvd();
    const port = await webServer('Apache/2.4.49 (Debian)');
    const { report } = await vm(port, { NETSCAN_NVD_URL: service.url });
    expect(cves(report)).toEqual([]);
    expect(check(report)).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('is a Debian build: its fixes are backported'),
    });
    expect(service.requests).toEqual([]);
  }, 60_000);

  it('reports vm.vulnerable_version as error when the service refuses or answers garbage', async () => {
    const port = await greeting('SSH-2.0-OpenSSH_7.4p1\r\n');
    const modes: [NvdMode, RegExp][] = [
      ['forbidden', /HTTP 403 \(rate limited.*NETSCAN_NVD_KEY\): Request forbidden by administrative rules/],
      ['too_many', /HTTP 429 \(rate limited/],
      ['not_json', /no readable JSON/],
      ['array', /not an NVD CVE API 2\.0 result: not a JSON object/],
      ['no_vulnerabilities', /vulnerabilities is not an array/],
      ['no_id', /record 0 has no CVE id/],
      ['wrong_start', /startIndex 1 where 0 was asked/],
      ['huge_total', /counts 1300000 CVEs .* not believed/],
    ];
    const rows = await mapBounded(modes, 3, async ([mode, reason]) => {
      const service = await nvd(mode);
      const { report } = await vm(port, { NETSCAN_NVD_URL: service.url });
      return { mode, status: check(report)?.status, findings: cves(report).length, reason: reason.test(check(report)?.detail ?? '') };
    });
    expect(rows.filter((row) => row.status !== 'error' || row.findings !== 0 || !row.reason)).toEqual([]);
  }, 120_000);
});

describe('netscan vm: Debian packages named by the banner through OSV', () => {
  it("re-checks each record's fixed version in Debian's order, and never asks NVD for a Debian build", async () => {
    const service = await nvd();
    const ports = await Promise.all([
      greeting('SSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u2\r\n'),
      greeting('SSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u7\r\n'),
      greeting('SSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u10\r\n'),
    ]);
    const [before, after, tenth] = await Promise.all(
      ports.map((port) => vm(port, { NETSCAN_NVD_URL: service.url, NETSCAN_OSV_URL: osvUrl }).then((r) => r.report)),
    );
    expect(osvQueries).toContainEqual({ package: { name: 'openssh', ecosystem: 'Debian:9' }, version: '1:7.4p1-10+deb9u7' });
    // DSA-4280-1 is fixed in 1:7.4p1-10+deb9u4: deb9u2 is affected; deb9u7 and deb9u10 (before deb9u4 as text) are not.
    expect(cves(before)).toEqual([['DSA-4280-1', 'medium']]);
    expect(cves(after)).toEqual([]);
    expect(cves(tenth)).toEqual([]);
    expect(check(after)?.detail).toMatch(
      /2 OSV records left out because their own ranges exclude Debian:9 openssh 1:7\.4p1-10\+deb9u7 \(DSA-4280-1, DSA-0000-1\)/,
    );
    expect(vulnerable(before)[0].evidence).toMatchObject({ source: 'osv', fixed: ['1:7.4p1-10+deb9u4'], version_source: 'banner' });
    expect(service.requests).toEqual([]);
  }, 60_000);
});
