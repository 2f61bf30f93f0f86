import { spawnTimed } from './timed-process.ts';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { engineReportSchema } from '../lib/report.ts';
import { buildEngineOf } from '../layers/build.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { makeTestPki, writeServerFiles } from '../layers/tlsscan/test/helpers/pki.ts';
import { PROTOCOLS, type Protocol, sslscan, testssl } from '../layers/tlsscan/test/helpers/references.ts';
import { dhParams, startOpenSslServer } from '../layers/tlsscan/test/helpers/servers.ts';
import { percentile } from './stats.ts';

// npm run bench:tls [-- --rounds 3]: a full scan of one endpoint, an openssl s_server with TLS 1.0
// to 1.3, NULL and anonymous suites and a 1024-bit DH group (82 accepted suite/version pairs), by
// the built tlsscan executable, by sslscan and by testssl.sh, interleaved (the order rotates every
// round), each as a fresh process. Each reference is asked for the work tlsscan does: sslscan's
// default run (protocols, every suite, renegotiation, compression, Heartbleed, certificate);
// testssl's -p -E -s -S -h -H -R -C (protocols, every suite per protocol, cipher categories, the
// certificate, HTTP headers, Heartbleed, renegotiation, CRIME). Prints each tool's wall times, the
// paired ratios reference / tlsscan (min/median/max), tlsscan's peak RSS and CPU time, and checks
// that all three report the same accepted protocols every round.
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);

const work = await mkdtemp(join(tmpdir(), 'tlsscan-bench-'));
const pki = await makeTestPki();
const leaf = await pki.leaf();
const files = await writeServerFiles(leaf, [pki.intermediate.pem]);
const server = await startOpenSslServer([...files.args, '-cipher', 'ALL:COMPLEMENTOFALL:@SECLEVEL=0', '-dhparam', await dhParams(1024)]);
const bin = await buildEngineOf('tlsscan', join(work, 'dist', 'bin', 'tlsscan'));
const hook = writePeakRssHook(work);
const target = `127.0.0.1:${server.port}`;

type Tool = 'tlsscan' | 'sslscan' | 'testssl';
const times: Record<Tool, number[]> = { tlsscan: [], sslscan: [], testssl: [] };
const rss: number[] = [];
const cpu: number[] = [];
const disagreements: string[] = [];

async function runTlsscan(round: number): Promise<Record<Protocol, boolean>> {
  const usage = join(work, `usage-${round}.json`);
  const scope = join(work, 'scope.json');
  await writeFile(scope, JSON.stringify({ http: true, extra_roots: pki.root.pem }));
  const { ms, stdout } = await spawnTimed(process.execPath, ['--require', hook, bin, 'scan', target, '--scope-json', scope], {
    env: { TLSSCAN_ALLOW_LOOPBACK: '1', PEAK_RSS_FILE: usage },
    resolveOnError: true,
  });
  times.tlsscan.push(ms);
  const measured = JSON.parse(await readFile(usage, 'utf8')) as { maxRssKiB: number; cpuMs: number };
  rss.push(measured.maxRssKiB / 1024);
  cpu.push(measured.cpuMs);
  const report = engineReportSchema().parse(JSON.parse(stdout));
  const fired = new Set(report.findings.map((f) => f.rule_id));
  const old = (report.findings.find((f) => f.rule_id === 'tls.protocol.sslv3')?.evidence.protocols ?? []) as string[];
  const modern = report.checks.find((c) => c.id === 'tls.protocol.no_modern')?.detail ?? '';
  return {
    SSLv2: old.includes('SSLv2'),
    SSLv3: old.includes('SSLv3'),
    'TLSv1.0': fired.has('tls.protocol.tls10'),
    'TLSv1.1': fired.has('tls.protocol.tls11'),
    // The no_modern check's detail names the modern versions accepted ("TLSv1.2 and TLSv1.3 accepted.").
    'TLSv1.2': modern.includes('TLSv1.2'),
    'TLSv1.3': modern.includes('TLSv1.3'),
  };
}

async function runSslscan(): Promise<Record<Protocol, boolean>> {
  const started = performance.now();
  const result = await sslscan(server.port);
  times.sslscan.push(performance.now() - started);
  return result.protocols;
}

async function runTestssl(): Promise<Record<Protocol, boolean>> {
  const started = performance.now();
  const verdicts = await testssl(server.port, ['-p', '-E', '-s', '-S', '-h', '-H', '-R', '-C'], 900_000);
  times.testssl.push(performance.now() - started);
  return verdicts.protocols;
}

const order: Tool[] = ['tlsscan', 'sslscan', 'testssl'];
try {
  for (let round = 0; round < rounds; round++) {
    const seen = {} as Record<Tool, Record<Protocol, boolean>>;
    for (let i = 0; i < order.length; i++) {
      const tool = order[(round + i) % order.length];
      seen[tool] = tool === 'tlsscan' ? await runTlsscan(round) : tool === 'sslscan' ? await runSslscan() : await runTestssl();
    }
    for (const protocol of PROTOCOLS) {
      const answers = order.map((tool) => seen[tool][protocol]);
      if (new Set(answers).size > 1)
        disagreements.push(`round ${round + 1} ${protocol}: ${order.map((t, i) => `${t}=${answers[i]}`).join(' ')}`);
    }
    process.stderr.write(`round ${round + 1}/${rounds}: ${order.map((t) => `${t} ${times[t].at(-1)!.toFixed(0)} ms`).join(', ')}\n`);
  }
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}

const summary = (list: number[]): string =>
  `min ${Math.min(...list).toFixed(2)}, median ${percentile(list, 50).toFixed(2)}, max ${Math.max(...list).toFixed(2)}`;
const ratios = (tool: Tool): number[] => times[tool].map((ms, i) => ms / times.tlsscan[i]);
const lines = [
  `full scan of ${target} (openssl s_server, TLS 1.0-1.3, weak suites, DH-1024), ${rounds} interleaved rounds, each tool a fresh process`,
  `tlsscan wall ms: ${summary(times.tlsscan)}; peak RSS MiB: ${summary(rss)}; CPU ms: ${summary(cpu)}`,
  `sslscan wall ms: ${summary(times.sslscan)}`,
  `testssl wall ms: ${summary(times.testssl)}`,
  `sslscan / tlsscan paired ratio: ${summary(ratios('sslscan'))}`,
  `testssl / tlsscan paired ratio: ${summary(ratios('testssl'))}`,
  disagreements.length === 0 ? 'accepted protocols: the same in all three, every round' : `DISAGREEMENTS:\n  ${disagreements.join('\n  ')}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (disagreements.length > 0) process.exitCode = 1;
