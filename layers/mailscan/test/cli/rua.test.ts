import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSchema } from '../../src/report.ts';
import type { RollupRow } from '../../src/rua/rollup.ts';
import { runRua } from '../../src/rua/run-rua.ts';
import { deflatedZeros, gzipBomb, zipOf } from '../helpers/archives.ts';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';
import { writePeakRssHook } from '../helpers/peak-rss.ts';
import { generateReport } from '../helpers/rua-reports.ts';

const fixtures = fileURLToPath(new URL('../../../../test/fixtures/mailscan/rua/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rua-cli-'));
const peakRssHook = writePeakRssHook(work);
// Posture's DNS is incidental here: a generous timeout keeps a loaded machine from failing the scan.
const patientDns = join(work, 'patient-dns.json');
writeFileSync(patientDns, JSON.stringify({ dns: { timeout_ms: 10_000, attempts: 3 } }));
const write = (name: string, content: string | Buffer) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};
const run = promisify(execFile);
const MIB = 1024 * 1024;

/** dmarc-cat's per-record table, summed per source IP: messages and header_from values. */
async function dmarcCatRollup(file: string, extension: string): Promise<Map<string, { messages: number; from: Set<string> }>> {
  // dmarc-cat only accepts reporters' file names: org!domain!begin!end.ext
  const named = join(mkdtempSync(join(work, 'dmarc-cat-')), `reporter!good.test!1763856000!1763942399${extension}`);
  copyFileSync(file, named);
  // -j 1: with its default two workers dmarc-cat 0.15 attributes counts to the wrong IPs now and then
  // (totals right, rows shuffled).
  const { stdout } = await run('dmarc-cat', ['-N', '-j', '1', named]);
  const rows = new Map<string, { messages: number; from: Set<string> }>();
  for (const line of stdout.split('\n')) {
    const [ip, count, from] = line.trim().split(/\s+/);
    if (!ip || isIP(ip) === 0) continue;
    const row = rows.get(ip) ?? { messages: 0, from: new Set<string>() };
    row.messages += Number(count);
    row.from.add(from.toLowerCase());
    rows.set(ip, row);
  }
  return rows;
}

describe('mailscan scan --rua', () => {
  let dns: TestDnsServer;
  const ruaScan = async (...files: string[]) =>
    (await scan('good.test', dns.address, ['--no-reputation', '--config', patientDns, ...files.flatMap((file) => ['--rua', file])])).report;

  /** Runs the bundled CLI under the usage hook: its report, CPU time (ms) and peak RSS (bytes). */
  const boundedScan = async (file: string) => {
    const bin = await buildCli();
    const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}`);
    const { stdout } = await run(
      process.execPath,
      [
        '--require',
        peakRssHook,
        bin,
        'scan',
        'good.test',
        '--no-reputation',
        '--config',
        patientDns,
        '--nameserver',
        dns.address,
        '--rua',
        file,
      ],
      {
        env: { PATH: process.env.PATH ?? '', PEAK_RSS_FILE: rssFile },
        maxBuffer: 16 * MIB,
      },
    );
    const usage = JSON.parse(readFileSync(rssFile, 'utf8')) as { maxRssKiB: number; cpuMs: number };
    return { report: reportSchema.parse(JSON.parse(stdout)), cpuMs: usage.cpuMs, peakRssBytes: usage.maxRssKiB * 1024 };
  };

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('adds the rua surface and its findings to the report', async () => {
    const report = await ruaScan(...['google.xml', 'microsoft.zip', 'yahoo.xml.gz', 'dmarcbis.xml'].map((name) => join(fixtures, name)));

    expect(report.surfaces.rua).toMatchObject({ status: 'ok', totals: { reports: 4, messages: 450, failing_source_ips: 3 } });
    expect(
      report.findings
        .filter((item) => item.rule_id === 'mailscan.dmarc.rua_misalignment')
        .map((item) => [item.evidence.source_ip, item.severity]),
    ).toEqual([
      ['203.0.113.9', 'high'],
      ['198.51.100.23', 'high'],
      ['192.0.2.123', 'medium'],
    ]);
    expect(report.surfaces.header).toMatchObject({ status: 'skipped' });
  });

  it.each([
    ['google.xml', '.xml'],
    ['google.zip', '.zip'],
    ['microsoft.xml.gz', '.xml.gz'],
    ['microsoft.zip', '.zip'],
    ['dmarcbis.xml', '.xml'],
    ['generated 10,000 records', '.xml'],
  ])('agrees with dmarc-cat on messages and header_from per source IP: %s', async (name, extension) => {
    // Yahoo's fixture is left out: dmarc-cat refuses its whitespace-padded source_ip, which real Yahoo reports carry.
    const file = name.startsWith('generated')
      ? write('big.xml', generateReport({ domain: 'good.test', records: 10_000, ips: 250 }))
      : join(fixtures, name);

    const [ours, theirs] = await Promise.all([runRua({ domain: 'good.test', files: [file] }), dmarcCatRollup(file, extension)]);
    const rows = (ours.data as { rollup: RollupRow[] }).rollup;

    expect(theirs.size).toBeGreaterThan(0);
    expect(new Map(rows.map((row) => [row.source_ip, { messages: row.messages, from: new Set(row.header_from) }]))).toEqual(theirs);
  });

  it('ends a billion-laughs XML, a zip bomb and a 1 GiB gzip bomb as bounded errors within 5 s and 256 MB', async () => {
    const laughs = [
      '<!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
    ].join('');
    const bombs: [string, RegExp][] = [
      [
        write(
          'laughs.xml',
          `<?xml version="1.0"?><!DOCTYPE feedback [${laughs}]><feedback><report_metadata><org_name>&lol9;</org_name></report_metadata></feedback>`,
        ),
        /DTD or entity declarations is refused/,
      ],
      [write('bomb.zip', zipOf([{ name: 'report.xml', deflated: deflatedZeros(1024) }])), /decompresses to more than/],
      [
        write('lying.zip', zipOf([{ name: 'report.xml', deflated: deflatedZeros(1024), declaredSize: 2048 }])),
        /inflates past its declared 2048 bytes/,
      ],
      [
        write('many.zip', zipOf(Array.from({ length: 40 }, (_, i) => ({ name: `r${i}.xml`, deflated: deflatedZeros(32) })))),
        /40 entries, over the limit/,
      ],
      [write('bomb.xml.gz', gzipBomb(1024)), /decompresses to more than/],
    ];
    for (const [file, message] of bombs) {
      const { report, cpuMs, peakRssBytes } = await boundedScan(file);

      expect(report.surfaces.rua.status).toBe('error');
      expect(report.errors).toEqual([expect.objectContaining({ surface: 'rua', message: expect.stringMatching(message) })]);
      // CPU time of the whole CLI process (start-up and posture included): wall time on a shared
      // machine measures the other tenants' load, not this input's cost.
      expect(cpuMs).toBeLessThan(5_000);
      expect(peakRssBytes).toBeLessThan(256 * MIB);
    }
  });

  it('reads a gzip-compressed 10,000-record report', async () => {
    const report = await ruaScan(write('daily.xml.gz', gzipSync(generateReport({ domain: 'good.test', records: 10_000, ips: 1_000 }))));

    expect(report.surfaces.rua).toMatchObject({
      status: 'ok',
      totals: { records: 10_000, source_ips: 1_000, failing_source_ips: 334 },
      rollup_truncated: 500,
    });
    expect(report.findings.filter((item) => item.rule_id === 'mailscan.dmarc.rua_misalignment')).toHaveLength(334);
  });
});
