import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { reputationDefaults } from '../layers/mailscan/src/reputation/defaults.ts';
import { snapshotBlobFor } from '../layers/mailscan/src/snapshot-blob.ts';
import { engineEnv } from '../shared/adapters/runners/engine-process.ts';
import { startDnsServerProcess } from '../layers/mailscan/test/helpers/dns-server-process.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';

// npm run bench:startup [-- --runs N --baseline PATH]: the mailscan CLI as whole processes: `--version`,
// `rules`, and a real scan (reputation on) of bench.test behind the loopback DNS server (no added
// delay), started as the dispatch function's runner starts it: the runner's own argv
// (the one runner's: `scan --scope-json=FILE --timeout=N --format=json -- bench.test`, the scope `{}`,
// no `--config`) and environment (`engineEnv`: MAILSCAN_* only, the resolver in MAILSCAN_NAMESERVERS), so the built-in DKIM
// selectors and block lists; the DNS server serves those lists' zones as well as bench.test.
// Every command runs in turn with a bare `node -e 0` (A B A B ...), and each is divided by the
// `node -e 0` of its own round: a paired ratio, printed as median (min–max). For the scan, the
// process's overhead is its wall time minus the scan's own reported time (finished_at −
// started_at): module loading, configuration, resolver set-up, and writing the report out; the
// issue 19 goal is overhead ≤ 2 × node -e 0. The compile cache is warmed by the untimed first
// round, as every scan after a Lambda environment's first finds it warm. Beside wall time, each
// process's CPU time (user + system, from a --require hook): on a shared, loaded machine wall time
// measures the other tenants, CPU time much less so.
// Each command also runs from the build's start-up snapshot (`node --snapshot-blob`, as the
// runner starts it when its node accepts the blob), with the paired ratio snapshot ÷ mailscan.
// --baseline PATH adds the same commands for another built CLI (say, one built from
// an older commit) in the same rounds, and the paired ratio mailscan ÷ baseline; from its own
// snapshot too when it has one (snapshot ÷ baseline-snapshot). A baseline built before the one
// runner (issue 32) takes no scope file: --baseline-flags scans it with the flags its own runner
// gave it (`scan --format=json --timeout=55 -- bench.test`), the same scan.
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, baseline: { type: 'string' }, 'baseline-flags': { type: 'boolean' } },
});
const runs = Number(values.runs);
const work = await mkdtemp(join(tmpdir(), 'bench-startup-'));
const bin = await buildMailscan(join(work, 'bin', 'mailscan'));
// The built-in block lists and trust list as zones of the loopback server: a name that is not
// listed gets NXDOMAIN, as from a real list; bench.test's second MX address is listed, its first
// trusted (the addresses lists.test lists for bench:scan).
const listZone = (zone: string, listed: string[]) => ({
  origin: zone,
  text: [`$ORIGIN ${zone}.`, `@ 300 IN SOA ns.${zone}. hostmaster.${zone}. ( 1 3600 600 86400 300 )`, ...listed].join('\n'),
});
const { dnsbl, trustlist } = reputationDefaults;
const dns = await startDnsServerProcess({
  zoneDir: fileURLToPath(new URL('../test/fixtures/mailscan/bench/', import.meta.url)),
  zones: [
    ...dnsbl.ipZones.map((zone, i) =>
      listZone(zone, i === 0 ? ['26.100.51.198 IN A 127.0.0.2', '26.100.51.198 IN TXT "listed for the benchmark"'] : []),
    ),
    ...dnsbl.domainZones.map((zone) => listZone(zone, [])),
    ...trustlist.zones.map((zone, i) => listZone(zone, i === 0 ? ['25.2.0.192 IN A 127.0.10.0'] : [])),
  ],
});
/** The runner's scan of bench.test with a 60-second budget (`--timeout=55`) and the scope `{}`. */
const scopeFile = join(work, 'scope.json');
await writeFile(scopeFile, '{}');
const scanArgs = ['scan', `--scope-json=${scopeFile}`, '--timeout=55', '--format=json', '--', 'bench.test'];
const flagScanArgs = ['scan', '--format=json', '--timeout=55', '--', 'bench.test'];

interface Sample {
  wall: number;
  /** The scan's own time from its report, 0 for the other commands. */
  scan: number;
  /** User + system CPU time of the whole process. */
  cpu: number;
}

const hook = writePeakRssHook(work);
const usageFile = join(work, 'usage.json');

function timeOnce(args: string[], cache: string): Promise<Sample> {
  // The runner's environment for the CLI (MAILSCAN_* and what a process needs), and the CPU hook's file.
  const env = {
    ...engineEnv('MAILSCAN', { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_COMPILE_CACHE: cache }),
    PEAK_RSS_FILE: usageFile,
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--require', hook, ...args], { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      const wall = performance.now() - started;
      if (error) return reject(new Error(`${args.join(' ')} failed: ${error.message}`));
      void readFile(usageFile, 'utf8').then((text) => {
        const { cpuMs: cpu } = JSON.parse(text) as { cpuMs: number };
        if (!args.includes('scan')) return resolve({ wall, scan: 0, cpu });
        const report = JSON.parse(stdout) as { started_at: string; finished_at: string };
        resolve({ wall, scan: Date.parse(report.finished_at) - Date.parse(report.started_at), cpu });
      }, reject);
    });
  });
}

/** `node` options before the executable: the snapshot's `--snapshot-blob`, or none. */
const cliCommands = (label: string, path: string, nodeOptions: string[] = [], scan = scanArgs): Record<string, () => Promise<Sample>> => {
  const cache = join(work, `cache-${label}`);
  const cli = [...nodeOptions, path];
  return {
    [`${label} --version`]: () => timeOnce([...cli, '--version'], cache),
    [`${label} rules`]: () => timeOnce([...cli, 'rules'], cache),
    [`${label} scan`]: () => timeOnce([...cli, ...scan], cache),
  };
};
const baselineScan = values['baseline-flags'] ? flagScanArgs : scanArgs;
const reference = 'node -e 0';
const baselineSnapshot = values.baseline && existsSync(snapshotBlobFor(values.baseline)) ? snapshotBlobFor(values.baseline) : null;
const samples = await interleaved(
  {
    [reference]: () => timeOnce(['-e', '0'], join(work, 'unused')),
    ...cliCommands('mailscan', bin),
    // The same build started from its start-up snapshot, as the runner starts it when node accepts the blob.
    ...cliCommands('snapshot', bin, ['--snapshot-blob', snapshotBlobFor(bin)]),
    ...(values.baseline ? cliCommands('baseline', values.baseline, [], baselineScan) : {}),
    ...(baselineSnapshot ? cliCommands('baseline-snapshot', values.baseline!, ['--snapshot-blob', baselineSnapshot], baselineScan) : {}),
  },
  runs,
);

const node = samples[reference].map((sample) => sample.wall);
const nodeCpu = samples[reference].map((sample) => sample.cpu);
const out = [
  `mailscan process start-up: ${runs} interleaved rounds (node ${process.version}); median (min–max); ratios paired per round`,
  '',
  '| command | wall | ÷ node -e 0 | process overhead (wall − scan) | overhead ÷ node -e 0 | CPU | CPU ÷ node -e 0 |',
  '|---|---:|---:|---:|---:|---:|---:|',
];
for (const [name, list] of Object.entries(samples)) {
  const wall = list.map((sample) => sample.wall);
  const cpu = list.map((sample) => sample.cpu);
  const isScan = name.endsWith(' scan');
  const overhead = list.map((sample) => sample.wall - sample.scan);
  const ratioTo = (values: number[], base: number[]) => (name === reference ? '1' : formatSpread(pairedRatios(values, base), '', 2));
  out.push(
    `| ${name} | ${formatSpread(wall, ' ms')} | ${ratioTo(wall, node)} | ${isScan ? formatSpread(overhead, ' ms') : ''} | ${isScan ? formatSpread(pairedRatios(overhead, node), '', 2) : ''} | ${formatSpread(cpu, ' ms')} | ${ratioTo(cpu, nodeCpu)} |`,
  );
}
const compare = (label: string, other: string): void => {
  out.push('', `| ${label} ÷ ${other}, paired | wall | scan overhead | CPU |`, '|---|---:|---:|---:|');
  for (const command of ['--version', 'rules', 'scan']) {
    const a = samples[`${label} ${command}`];
    const b = samples[`${other} ${command}`];
    const ratio = (pick: (sample: Sample) => number) => formatSpread(pairedRatios(a.map(pick), b.map(pick)), '', 2);
    out.push(
      `| ${command} | ${ratio((sample) => sample.wall)} | ${command === 'scan' ? ratio((sample) => sample.wall - sample.scan) : ''} | ${ratio((sample) => sample.cpu)} |`,
    );
  }
};
compare('snapshot', 'mailscan');
if (values.baseline) compare('mailscan', 'baseline');
if (baselineSnapshot) compare('snapshot', 'baseline-snapshot');
process.stdout.write(`${out.join('\n')}\n`);
await dns.close();
await rm(work, { recursive: true, force: true });
