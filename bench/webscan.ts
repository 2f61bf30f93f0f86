import { spawnTimed } from './timed-process.ts';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { engineReportSchema } from '../lib/report.ts';
import { buildEngineOf } from '../layers/build.ts';
import { freePort, makeServerDir, startNginx, writeTree } from '../layers/webscan/test/helpers/servers.ts';
import { prepareWapitiDir, readWapitiReport, ruleOfWapiti, wapitiArgs, OVERLAP } from '../layers/webscan/test/helpers/wapiti.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { formatSpread, pairedRatios } from './paired.ts';

// npm run bench:web [-- --rounds 3 --rate 20]: a 211-page site on Debian nginx (an index, 10
// sections of 20 pages, every page missing the security headers, a session cookie without flags,
// an index.html.bak), scanned in turn (A B A B ...) by the built webscan executable (max_pages 250,
// so it crawls the whole site, at the scope's highest rate unless --rate says otherwise) and by
// wapiti 3.0.4 with the modules that overlap webscan's rules (http_headers, cookieflags, csp,
// methods, backup; depth 3 reaches every page), each a fresh process. Prints each tool's wall
// times, the paired ratios wapiti / webscan (min/median/max), webscan's peak RSS, both tools'
// requests as nginx logged them and webscan's busiest second, and checks every round that both
// reach the same verdicts on the rules they share.
//
// --server-rate N makes nginx admit at most N requests a second from anyone (limit_req with a
// queue deep enough that nothing is refused: excess requests wait, none gets a 503), as a
// production site behind a rate limiter would. Both tools then run at the same request rate, and
// the ratio measures the work each needs for the same verdicts instead of how fast loopback nginx
// answers a tool that ignores `rate` (wapiti has no rate setting; webscan's is capped at 20/s by
// DESIGN §17).
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '20' },
    'server-rate': { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const rate = Number(values.rate);
const serverRate = values['server-rate'] === undefined ? undefined : Number(values['server-rate']);
if (serverRate !== undefined && !(Number.isInteger(serverRate) && serverRate > 0))
  throw new Error(`--server-rate must be a whole number of requests a second, not ${values['server-rate']}`);

const work = await mkdtemp(join(tmpdir(), 'webscan-bench-'));
const dir = await makeServerDir('webscan-bench-nginx-');
const port = await freePort();
const files: Record<string, string> = {
  'index.html': `<!doctype html><html><body>${Array.from({ length: 10 }, (_, s) => `<a href="/s${s}/">section ${s}</a>`).join(' ')}</body></html>`,
  'index.html.bak': '<!doctype html><html><body>old</body></html>',
};
for (let s = 0; s < 10; s += 1) {
  files[`s${s}/index.html`] =
    `<!doctype html><html><body>${Array.from({ length: 20 }, (_, p) => `<a href="/s${s}/p${p}.html">page ${p}</a>`).join(' ')}</body></html>`;
  for (let p = 0; p < 20; p += 1)
    files[`s${s}/p${p}.html`] =
      `<!doctype html><html><body><p>Page ${s}.${p}</p><a href="/s${s}/">up</a> <a href="/index.html">home</a></body></html>`;
}
await writeTree(join(dir, 'www'), files);
const nginx = await startNginx(
  dir,
  `${serverRate === undefined ? '' : `limit_req_zone $binary_remote_addr zone=bench:1m rate=${serverRate}r/s; limit_req zone=bench burst=100000; `}` +
    `server { listen 127.0.0.1:${port}; root {{DIR}}/www; location = / { add_header Set-Cookie "sessionid=1; Path=/"; try_files /index.html =404; } }`,
  [port],
);
const target = `http://127.0.0.1:${port}/`;
const bin = await buildEngineOf('webscan', join(work, 'dist', 'bin', 'webscan'));
const hook = writePeakRssHook(work);

const times = { webscan: [] as number[], wapiti: [] as number[] };
const rss: number[] = [];
const cpu = { webscan: [] as number[], wapiti: [] as number[] };
const requests = { webscan: [] as number[], wapiti: [] as number[] };
const busiest: number[] = [];
const pages: number[] = [];
const disagreements: string[] = [];

async function logged(userAgent: RegExp, since: number): Promise<number[]> {
  return (await nginx.accessLog())
    .filter((entry) => userAgent.test(entry.userAgent) && entry.time * 1000 >= since)
    .map((entry) => entry.time * 1000);
}

async function runWebscan(round: number): Promise<Set<string>> {
  const usage = join(work, `usage-${round}.json`);
  const scope = join(work, 'scope.json');
  await writeFile(scope, JSON.stringify({ max_pages: 250, max_depth: 3, rate }));
  const since = Date.now();
  const { ms, stdout } = await spawnTimed(process.execPath, ['--require', hook, bin, 'scan', target, '--scope-json', scope], {
    env: {
      WEBSCAN_ALLOW_LOOPBACK: '1',
      PEAK_RSS_FILE: usage,
    },
    timeoutMs: 900_000,
  });
  times.webscan.push(ms);
  const measured = JSON.parse(await readFile(usage, 'utf8')) as { maxRssKiB: number; cpuMs: number };
  rss.push(measured.maxRssKiB / 1024);
  cpu.webscan.push(measured.cpuMs);
  const report = engineReportSchema().parse(JSON.parse(stdout));
  pages.push(
    Number(/(\d+) pages crawled/.exec(report.checks.find((check) => check.id === 'web.disclosure.debug_error')!.detail)?.[1] ?? 0),
  );
  const sent = (await logged(/^webscan\//, since)).sort((a, b) => a - b);
  requests.webscan.push(sent.length);
  let most = 0;
  for (let i = 0, j = 0; i < sent.length; i += 1) {
    while (sent[i] - sent[j] >= 1000) j += 1;
    most = Math.max(most, i - j + 1);
  }
  busiest.push(most);
  return new Set(report.checks.filter((check) => check.status === 'fail').map((check) => check.id));
}

async function runWapiti(): Promise<Set<string>> {
  const wapitiDir = await prepareWapitiDir();
  const since = Date.now();
  try {
    // GNU time reports wapiti's CPU (user and system seconds) to a file of its own.
    const cpuFile = join(wapitiDir, 'cpu.txt');
    const { ms } = await spawnTimed('/usr/bin/time', ['-f', '%U %S', '-o', cpuFile, 'wapiti', ...wapitiArgs(target, wapitiDir, 3)], {
      env: {
        HOME: wapitiDir,
      },
      timeoutMs: 900_000,
    });
    times.wapiti.push(ms);
    const [user, system] = (await readFile(cpuFile, 'utf8')).trim().split(/\s+/).slice(-2).map(Number);
    cpu.wapiti.push((user + system) * 1000);
    requests.wapiti.push((await logged(/^(?!webscan\/)/, since)).length);
    return new Set((await readWapitiReport(join(wapitiDir, 'report.json'))).map(ruleOfWapiti).filter((rule): rule is string => !!rule));
  } finally {
    await rm(wapitiDir, { recursive: true, force: true });
  }
}

try {
  for (let round = 0; round < rounds; round += 1) {
    // The order alternates, so neither tool always runs on a warmer machine.
    const first = round % 2 === 0;
    const webscanFails = first ? await runWebscan(round) : undefined;
    const wapitiFires = await runWapiti();
    const webscanVerdicts = webscanFails ?? (await runWebscan(round));
    for (const rule of OVERLAP) {
      // Explained (docs/webscan.md): over plain HTTP webscan judges neither HSTS nor Secure.
      if (rule === 'web.headers.hsts_missing' || rule === 'web.cookie.no_secure') continue;
      if (wapitiFires.has(rule) !== webscanVerdicts.has(rule))
        disagreements.push(`round ${round + 1} ${rule}: wapiti ${wapitiFires.has(rule)}, webscan ${webscanVerdicts.has(rule)}`);
    }
    process.stderr.write(
      `round ${round + 1}/${rounds}: webscan ${times.webscan.at(-1)!.toFixed(0)} ms, wapiti ${times.wapiti.at(-1)!.toFixed(0)} ms\n`,
    );
  }
} finally {
  await nginx.stop();
  await rm(work, { recursive: true, force: true });
}

const lines = [
  `a 211-page site on nginx at ${target}${serverRate === undefined ? '' : ` admitting ${serverRate} requests a second (queued, none refused)`}, ${rounds} interleaved rounds, each tool a fresh process; webscan at rate ${rate}/s, max_pages 250`,
  `webscan wall: ${formatSpread(times.webscan, ' ms')}; pages crawled: ${formatSpread(pages)}; requests: ${formatSpread(requests.webscan)}; busiest second: ${formatSpread(busiest)} requests; CPU: ${formatSpread(cpu.webscan, ' ms')}; peak RSS: ${formatSpread(rss, ' MiB', 1)}`,
  `wapiti  wall: ${formatSpread(times.wapiti, ' ms')}; requests: ${formatSpread(requests.wapiti)}; CPU: ${formatSpread(cpu.wapiti, ' ms')}`,
  `wapiti / webscan CPU (paired): ${formatSpread(pairedRatios(cpu.wapiti, cpu.webscan), '×', 2)}`,
  `wapiti / webscan (paired): ${formatSpread(pairedRatios(times.wapiti, times.webscan), '×', 2)}`,
  disagreements.length === 0 ? 'verdicts on the shared rules: equal every round' : `DISAGREEMENTS:\n${disagreements.join('\n')}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (disagreements.length > 0) process.exitCode = 1;
