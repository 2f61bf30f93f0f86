import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMailscan } from '../../layers/mailscan/build.ts';
import { startDnsServerProcess } from '../../layers/mailscan/test/helpers/dns-server-process.ts';

// npm run bench:scan-durations: the wall time of whole mailscan processes (what the dispatch
// function waits for and Lambda bills) scanning bench.test behind the loopback DNS server, at
// several added answer delays standing in for internet round-trips. Writes the samples to
// bench/fixtures/scan-durations.json, where `npm run simulate:herd` draws its scan durations.
const delaysMs = [5, 20, 50, 100];
const runsPerDelay = 5;
const out = fileURLToPath(new URL('../fixtures/scan-durations.json', import.meta.url));

const work = await mkdtemp(join(tmpdir(), 'scan-durations-'));
const bin = await buildMailscan(join(work, 'bin', 'mailscan'));
const config = join(work, 'config.json');
await writeFile(
  config,
  JSON.stringify({
    dnsbl: {
      ip_zones: ['ip1.lists.test', 'ip2.lists.test', 'ip3.lists.test'],
      domain_zones: ['dom1.lists.test', 'dom2.lists.test', 'dom3.lists.test'],
    },
    trustlist: { zones: ['trust.lists.test'] },
  }),
);

function runScan(nameserver: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, 'scan', 'bench.test', '--nameserver', nameserver, '--config', config],
      { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 },
      (error) => {
        // Exit 1 (findings) is a finished scan; only a crash or a usage error is not a sample.
        if (error && error.code !== 1) reject(new Error(`mailscan failed: ${error.message}`));
        else resolve((performance.now() - started) / 1000);
      },
    );
  });
}

const samples: { delayMs: number; seconds: number }[] = [];
for (const delayMs of delaysMs) {
  const dns = await startDnsServerProcess({
    zoneDir: fileURLToPath(new URL('../../test/fixtures/mailscan/bench/', import.meta.url)),
    addedDelayMs: delayMs,
  });
  for (let i = 0; i < runsPerDelay; i += 1) samples.push({ delayMs, seconds: await runScan(dns.address) });
  await dns.close();
  const these = samples.filter((sample) => sample.delayMs === delayMs).map((sample) => sample.seconds);
  process.stdout.write(`added delay ${String(delayMs).padStart(3)} ms: ${these.map((s) => s.toFixed(2)).join(' ')} s\n`);
}
await writeFile(
  out,
  `${JSON.stringify(
    {
      what: 'wall seconds of whole mailscan processes scanning bench.test (posture + reputation) behind the loopback DNS server',
      measured: new Date().toISOString().slice(0, 10),
      command: 'npm run bench:scan-durations',
      samples,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`wrote ${samples.length} samples to ${out}\n`);
await rm(work, { recursive: true, force: true });
