import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runReputation } from '../layers/mailscan/src/reputation/index.ts';
import { makeCachingResolver } from '../lib/dns/caching-resolver.ts';
import { makeCountingResolver } from '../layers/mailscan/src/dns/counting-resolver.ts';
import { trackDepth } from '../layers/mailscan/src/dns/dependency-depth.ts';
import { makeRawResolver } from '../lib/dns/raw-resolver.ts';
import { lookupViaResolver } from '../lib/http/resolver-lookup.ts';
import { makeSafeFetch } from '../lib/http/safe-fetch.ts';
import type { RecordType, Resolver } from '../lib/dns/resolver.ts';
import { scanDomain } from '../layers/mailscan/src/scan/scan-domain.ts';
import { startDnsServerProcess } from '../layers/mailscan/test/helpers/dns-server-process.ts';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { formatSpread, pairedRatios } from './paired.ts';

// npm run bench:scan [-- --runs N --domain bench.test|deep.test]: one full scan (posture + reputation)
// of bench.test (depth 4) or deep.test (depth 5: the a: term at the bottom of the includes) behind the loopback
// DNS server with 20 ms added to every answer. Prints the wall time, the queries sent, the depth of
// the longest chain of dependent queries, and wall / (depth × 20 ms): 1.0 means the scan costs only
// its unavoidable round-trips; the target is at most 1.3. `--delay 0` shows the scan's own CPU and
// loopback time, which is what the ratio pays above 1.0 wherever it is not overlapped with waiting.
//
// Depth comes from the counting resolver (layers/mailscan/src/dns/counting-resolver.ts): each query
// is one deeper than the deepest answer its asynchronous flow has waited for, tracked with
// AsyncLocalStorage; concurrent checks run in branches, so a sibling's answer is not a dependency.
//
// Where the time above depth × delay goes: every query that reaches the wire is time-stamped when it
// is sent and when its answer is back. The critical path is walked back from the last answer: the
// query answered last, then the answer that came in last before that query was sent, and so on.
// The scan's wall time then splits exactly into: start → first query, the waits (each above the
// added delay: the server's and the kernel's time, and the machine's scheduling), the gaps between an
// answer and the next query on the path (the scan's own CPU), and last answer → report.
// The headline is the whole process, as the dispatch function pays it: the bundled CLI started with
// the same configuration, its wall time from spawn to exit (module loading, configuration, the scan,
// the report written out). Each round runs the in-process scan and the process scan in turn, so
// process ÷ in-process is paired per round: what starting the process adds.
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    domain: { type: 'string', default: 'bench.test' },
    delay: { type: 'string', default: '20' },
  },
});
const runs = Number(values.runs);
const domain = values.domain;
const DELAY_MS = Number(values.delay);
const selectors = Array.from({ length: 20 }, (_, i) => `sel${String(i).padStart(2, '0')}`);

const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps"><title>Bench</title><rect width="10" height="10"/></svg>';
const web = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg));
await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
const webPort = (web.address() as AddressInfo).port;

// The DNS server runs in its own process, as a real one would: its work must not slow the scan.
const dns = await startDnsServerProcess({
  zoneDir: fileURLToPath(new URL('../test/fixtures/mailscan/bench/', import.meta.url)),
  zones: [{ text: `default._bimi IN TXT "v=BIMI1; l=http://logo.${domain}:${webPort}/logo.svg;"`, origin: domain }],
  addedDelayMs: DELAY_MS,
});

async function scanOnce() {
  const raw = makeRawResolver({ servers: [dns], timeoutMs: 2_000, attempts: 2 });
  const wire: { key: string; sent: number; answered: number }[] = [];
  const timed: Resolver = {
    async query<T extends RecordType>(name: string, type: T) {
      const entry = { key: `${type} ${name}`, sent: performance.now(), answered: Number.NaN };
      wire.push(entry);
      const answer = await raw.query(name, type);
      entry.answered = performance.now();
      return answer;
    },
  };
  const { resolver, count } = makeCountingResolver(makeCachingResolver(timed));
  const fetch = makeSafeFetch({
    timeoutMs: 5_000,
    maxBytes: 256 * 1024,
    allowPrivate: false,
    allowLoopback: true,
    lookup: lookupViaResolver(resolver),
  });
  const config = {
    dnsbl: {
      ipZones: ['ip1.lists.test', 'ip2.lists.test', 'ip3.lists.test'],
      domainZones: ['dom1.lists.test', 'dom2.lists.test', 'dom3.lists.test'],
    },
    trustlist: { zones: ['trust.lists.test'] },
    senderScore: { endpoint: '', timeoutMs: 1_000 },
    threatIntel: { endpoint: '', timeoutMs: 1_000 },
    vmcRoots: () => [],
  };
  const started = performance.now();
  const { result } = await trackDepth(() =>
    scanDomain(
      {
        domain,
        dkimSelectors: selectors,
        reputation: { run: runReputation, context: { resolver, fetch, config, now: () => new Date(), log: () => {} } },
      },
      { resolver, now: () => new Date(), log: () => {} },
    ),
  );
  const finished = performance.now();
  const wall = finished - started;
  if (result.kind !== 'report') throw new Error(result.message);
  return {
    wall,
    queries: count.queries,
    depth: count.maxDepth,
    report: result.report,
    log: count.log,
    path: criticalPath(wire, started, finished),
  };
}

/** The chain of wire queries that ends last, and the wall time split along it (see the header). */
function criticalPath(wire: { key: string; sent: number; answered: number }[], started: number, finished: number) {
  const steps: { key: string; wait: number; gapBefore: number }[] = [];
  let current = wire.reduce((last, entry) => (entry.answered > last.answered ? entry : last));
  const tail = finished - current.answered;
  for (;;) {
    const sent = current.sent;
    const before = wire
      .filter((entry) => entry.answered <= sent)
      .reduce<typeof current | null>((last, entry) => (last === null || entry.answered > last.answered ? entry : last), null);
    steps.unshift({ key: current.key, wait: current.answered - current.sent, gapBefore: sent - (before?.answered ?? started) });
    if (before === null) break;
    current = before;
  }
  return { steps, tail };
}

const work = await mkdtemp(join(tmpdir(), 'bench-scan-'));
const bin = await buildMailscan(join(work, 'bin', 'mailscan'));
const configFile = join(work, 'config.json');
await writeFile(
  configFile,
  JSON.stringify({
    dkim: { selectors },
    dnsbl: {
      ip_zones: ['ip1.lists.test', 'ip2.lists.test', 'ip3.lists.test'],
      domain_zones: ['dom1.lists.test', 'dom2.lists.test', 'dom3.lists.test'],
    },
    trustlist: { zones: ['trust.lists.test'] },
    dns: { timeout_ms: 2_000, attempts: 2 },
  }),
);

/** The bundled CLI as a whole process: wall time from spawn to exit. */
function processScan(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, 'scan', domain, '--nameserver', dns.address, '--config', configFile],
      // Loopback BIMI assets need MAILSCAN_ALLOW_LOOPBACK, as in the tests; the compile cache is warm after the first run.
      {
        env: { PATH: process.env.PATH ?? '', MAILSCAN_ALLOW_LOOPBACK: '1', MAILSCAN_COMPILE_CACHE: join(work, 'cache') },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error) => (error ? reject(new Error(`mailscan scan failed: ${error.message}`)) : resolve(performance.now() - started)),
    );
  });
}

await scanOnce(); // warm-up: JIT and module initialisation are not the in-process scan's cost
await processScan(); // warm-up: the compile cache, as every scan after a Lambda environment's first finds it
const samples = [];
const processWalls: number[] = [];
for (let i = 0; i < runs; i += 1) {
  samples.push(await scanOnce());
  processWalls.push(await processScan());
}
const inProcessWalls = samples.map((sample) => sample.wall);
samples.sort((a, b) => a.wall - b.wall);
const median = samples[Math.floor(samples.length / 2)];
const ratio = median.wall / (median.depth * DELAY_MS);

const { steps, tail } = median.path;
const waited = steps.reduce((sum, step) => sum + step.wait, 0);
const cpu = steps.slice(1).reduce((sum, step) => sum + step.gapBefore, 0);
const chain = median.log.filter((entry) => entry.depth === median.depth).map((entry) => `${entry.type} ${entry.name}`);
process.stdout.write(
  [
    `mailscan scan of ${domain}, ${DELAY_MS} ms added per DNS answer, ${runs} rounds; median (min–max)`,
    `  whole process     ${formatSpread(processWalls, ' ms')}: the bundled CLI from spawn to exit, what a real scan pays`,
    `  process ÷ (depth × ${DELAY_MS} ms) = ${formatSpread(
      processWalls.map((wall) => wall / (median.depth * DELAY_MS)),
      '',
      2,
    )}`,
    `  process ÷ in-process, paired per round = ${formatSpread(pairedRatios(processWalls, inProcessWalls), '', 2)}`,
    '',
    `  in-process scan (no process start), the analysis below:`,
    `  wall time         ${median.wall.toFixed(0)} ms (min ${samples[0].wall.toFixed(0)}, max ${samples.at(-1)!.wall.toFixed(0)})`,
    `  DNS queries       ${median.queries}`,
    `  dependency depth  ${median.depth} (deepest: ${chain.join(', ')})`,
    `  wall / (depth × ${DELAY_MS} ms) = ${ratio.toFixed(2)} (target ≤ 1.3)`,
    `  critical path     ${steps.length} answers waited for: ${steps.map((step) => step.key).join(' → ')}`,
    `    start → first query     ${steps[0].gapBefore.toFixed(2)} ms`,
    `    waits for answers       ${waited.toFixed(1)} ms (${steps.length} × ${DELAY_MS} ms added + ${(waited - steps.length * DELAY_MS).toFixed(1)} ms server, kernel and scheduling: ${steps.map((step) => (step.wait - DELAY_MS).toFixed(1)).join(', ')})`,
    `    answer → next query     ${cpu.toFixed(2)} ms (the scan's CPU between answers on the path)`,
    `    last answer → report    ${tail.toFixed(2)} ms`,
    `  findings          ${median.report.findings.map((item) => item.rule_id).join(', ') || 'none'}`,
    `  errors            ${median.report.errors.map((error) => `${error.surface}/${error.check}`).join(', ') || 'none'}`,
    '',
  ].join('\n'),
);

await dns.close();
await new Promise<void>((resolve) => web.close(() => resolve()));
await rm(work, { recursive: true, force: true });
