import { spawnTimed } from './timed-process.ts';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { engineReportSchema } from '../lib/report.ts';
import { buildEngineOf } from '../layers/build.ts';
import { freePort, start, waitForPort } from '../layers/medscan/test/helpers/processes.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { formatSpread, pairedRatios } from './paired.ts';

// npm run bench:med [-- --rounds 10]: one DICOM port (dcmtk's storescp, which accepts any AE) scanned
// in turn (A B A B ...) by the built medscan executable (that port only: `host:port`, so DICOM,
// then nothing else once the port speaks DICOM) and by `nmap -p PORT --script +dicom-ping`, each
// a fresh process. Prints both tools' wall times, the paired ratios nmap / medscan (min/median/max)
// and medscan's peak RSS, and checks every round that both reach the same verdict on the called AE
// (nmap: "Any AET is accepted"; medscan: med.dicom.any_called_ae fails).
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' } } });
const rounds = Number(values.rounds);

const work = await mkdtemp(join(tmpdir(), 'medscan-bench-'));
await mkdir(join(work, 'store'));
const port = await freePort();
const storescp = start('storescp', ['-od', join(work, 'store'), String(port)]);
await waitForPort(port, storescp.child);
const bin = await buildEngineOf('medscan', join(work, 'dist', 'bin', 'medscan'));
const hook = writePeakRssHook(work);

const times = { medscan: [] as number[], nmap: [] as number[] };
const rss: number[] = [];
const disagreements: string[] = [];

async function runMedscan(round: number): Promise<boolean> {
  const usage = join(work, `usage-${round}.json`);
  const scope = join(work, 'scope.json');
  await writeFile(scope, JSON.stringify({ connect_timeout_ms: 3000 }));
  const { ms, stdout } = await spawnTimed(process.execPath, ['--require', hook, bin, 'scan', `127.0.0.1:${port}`, '--scope-json', scope], {
    env: {
      MEDSCAN_ALLOW_LOOPBACK: '1',
      PEAK_RSS_FILE: usage,
    },
    maxBufferBytes: 16 * 1024 * 1024,
    timeoutMs: 120_000,
  });
  times.medscan.push(ms);
  rss.push((JSON.parse(await readFile(usage, 'utf8')) as { maxRssKiB: number }).maxRssKiB / 1024);
  const report = engineReportSchema().parse(JSON.parse(stdout));
  return report.checks.find((check) => check.id === 'med.dicom.any_called_ae')!.status === 'fail';
}

async function runNmap(): Promise<boolean> {
  const { ms, stdout } = await spawnTimed('nmap', ['-n', '-Pn', '-sT', '-p', String(port), '--script', '+dicom-ping', '127.0.0.1'], {
    env: {},
    maxBufferBytes: 16 * 1024 * 1024,
    timeoutMs: 120_000,
  });
  times.nmap.push(ms);
  return /Any AET is accepted/.test(stdout);
}

try {
  for (let round = 0; round < rounds; round += 1) {
    // The order alternates, so neither tool always runs on a warmer machine.
    const first = round % 2 === 0;
    const medscanFirst = first ? await runMedscan(round) : undefined;
    const nmapVerdict = await runNmap();
    const medscanVerdict = medscanFirst ?? (await runMedscan(round));
    if (nmapVerdict !== medscanVerdict) disagreements.push(`round ${round + 1}: nmap any AET ${nmapVerdict}, medscan ${medscanVerdict}`);
    process.stderr.write(
      `round ${round + 1}/${rounds}: medscan ${times.medscan.at(-1)!.toFixed(0)} ms, nmap ${times.nmap.at(-1)!.toFixed(0)} ms\n`,
    );
  }
} finally {
  await storescp.stop();
  await rm(work, { recursive: true, force: true });
}

const lines = [
  `storescp on 127.0.0.1:${port}, ${rounds} interleaved rounds, each tool a fresh process`,
  `medscan wall: ${formatSpread(times.medscan, ' ms')}; peak RSS: ${formatSpread(rss, ' MiB', 1)}`,
  `nmap    wall: ${formatSpread(times.nmap, ' ms')}`,
  `nmap / medscan (paired): ${formatSpread(pairedRatios(times.nmap, times.medscan), '×', 2)}`,
  disagreements.length === 0 ? 'verdicts: equal in every round (any called AE accepted)' : `DISAGREEMENTS:\n${disagreements.join('\n')}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (disagreements.length > 0 || Math.max(...rss) >= 128) process.exitCode = 1;
