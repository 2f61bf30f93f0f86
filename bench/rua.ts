import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { zipOf } from '../layers/mailscan/test/helpers/archives.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { startDnsServerProcess } from '../layers/mailscan/test/helpers/dns-server-process.ts';
import { generateReport } from '../layers/mailscan/test/helpers/rua-reports.ts';

// npm run bench:rua [-- REPORTS RECORDS_PER_REPORT]: the bundled mailscan CLI parses and rolls up
// REPORTS aggregate reports (default 100 × 10,000 = 1 million records; a third each XML, gzip and
// zip, 5,000 source IPs) in one `scan --no-reputation --rua ...`. Prints records per second over
// the CLI's wall time (posture against the loopback DNS server included) and the process's peak RSS.
const reports = Number(process.argv[2] ?? 100);
const perReport = Number(process.argv[3] ?? 10_000);
const work = mkdtempSync(join(tmpdir(), 'bench-rua-'));

const files: string[] = [];
let bytes = 0;
for (let i = 0; i < reports; i++) {
  const xml = Buffer.from(
    generateReport({
      domain: 'good.test',
      records: perReport,
      ips: 5_000,
      orgName: `reporter${i % 7}.example`,
      reportId: `bench-${i}`,
      begin: 1763856000 + 86400 * (i % 30),
    }),
  );
  const kind = i % 3;
  const content = kind === 0 ? xml : kind === 1 ? gzipSync(xml) : zipOf([{ name: `report-${i}.xml`, data: xml }]);
  const file = join(work, `report-${i}${['.xml', '.xml.gz', '.zip'][kind]}`);
  writeFileSync(file, content);
  files.push(file);
  bytes += content.length;
}

const bin = await buildMailscan(join(work, 'bin', 'mailscan'));
const dns = await startDnsServerProcess({ zoneDir: fileURLToPath(new URL('../test/fixtures/mailscan/zones/', import.meta.url)) });
const rssFile = join(work, 'peak-rss');
const hook = writePeakRssHook(work);
try {
  const started = performance.now();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--require',
      hook,
      bin,
      'scan',
      'good.test',
      '--no-reputation',
      '--timeout',
      '600',
      '--nameserver',
      `${dns.host}:${dns.port}`,
      ...files.flatMap((file) => ['--rua', file]),
    ],
    {
      env: { PATH: process.env.PATH ?? '', PEAK_RSS_FILE: rssFile },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const report = JSON.parse(stdout) as {
    surfaces: { rua: { status: string; totals: { records: number; messages: number; source_ips: number; failing_source_ips: number } } };
    errors: unknown[];
  };
  const { totals } = report.surfaces.rua;
  const usage = JSON.parse(readFileSync(rssFile, 'utf8')) as { maxRssKiB: number; cpuMs: number };
  const peakRss = usage.maxRssKiB * 1024;
  process.stdout.write(
    [
      `rua: ${reports} reports (${(bytes / 1024 / 1024).toFixed(1)} MiB on disk), ${totals.records} records, ${totals.source_ips} source IPs, ${totals.failing_source_ips} failing, ${report.errors.length} errors`,
      `wall ${seconds.toFixed(2)} s, ${Math.round(totals.records / seconds).toLocaleString('en-US')} records/s; CPU ${(usage.cpuMs / 1000).toFixed(2)} s, ${Math.round(totals.records / (usage.cpuMs / 1000)).toLocaleString('en-US')} records per CPU-second; peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MiB`,
    ].join('\n') + '\n',
  );
} finally {
  await dns.close();
  rmSync(work, { recursive: true, force: true });
}
