/**
 * npm run bench:net [-- --runs 5 --rate 5000 --in-flight 512]: netscan's TCP connect scan against
 * `nmap -sT` on a /24 of loopback aliases (127.0.1.0/24: on Linux all of 127/8 answers on lo) ×
 * top100, plus the ports of three listeners on three of the aliases (ephemeral ports, so the port
 * list is top100 + 3 for both tools). Same ports, same addresses, same rate cap and parallelism:
 *
 *   netscan: scope {ports, rate, connect_timeout_ms: 1500}, config {netscan: {max_in_flight}}
 *   nmap:    -sT -Pn -n --max-retries 0 --max-rate <rate> --max-parallelism <in-flight>
 *            --max-rtt-timeout 1500ms -p <ports> 127.0.1.0/24
 *
 * Runs interleaved (netscan, nmap, netscan, nmap, ...). Prints per run: the port-scan phase
 * (netscan's `port scan started` → `port scan finished` progress events; the equal work), the
 * whole process's wall time (netscan also identifies the three services), the most sockets each
 * process held open (sampled from /proc/<pid>/fd every 10 ms), and netscan's peak RSS (VmHWM);
 * then min/median/max of the paired ratios netscan/nmap. Every run must find the same open
 * ports, or the bench fails.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildEngineOf } from '../layers/build.ts';
import { TOP_TCP_PORTS } from '../layers/netscan/src/ports/top-tcp-ports.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    rate: { type: 'string', default: '5000' },
    'in-flight': { type: 'string', default: '512' },
  },
});
const RUNS = Number(values.runs);
const RATE = Number(values.rate);
const IN_FLIGHT = Number(values['in-flight']);
const NMAP = '/usr/bin/nmap';
const CIDR = '127.0.1.0/24';

/** Three listeners that greet at once (an SSH-like banner), on three aliases. */
async function startListeners(): Promise<{ endpoints: string[]; ports: number[]; close: () => void }> {
  const servers: Server[] = [];
  const endpoints: string[] = [];
  for (const host of ['127.0.1.5', '127.0.1.77', '127.0.1.200']) {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.end('SSH-2.0-OpenSSH_9.2p1 bench\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    servers.push(server);
    endpoints.push(`${host}:${(server.address() as AddressInfo).port}`);
  }
  return { endpoints, ports: endpoints.map((e) => Number(e.split(':')[1])), close: () => servers.forEach((s) => s.close()) };
}

interface Sample {
  peakSockets: number;
  peakRssKb: number;
}

/** Samples a process's open sockets and VmHWM until it exits. */
function sampler(pid: number): { stop: () => Sample } {
  const sample: Sample = { peakSockets: 0, peakRssKb: 0 };
  let running = true;
  const tick = async (): Promise<void> => {
    while (running) {
      try {
        const fds = await readdir(`/proc/${pid}/fd`);
        let sockets = 0;
        for (const fd of fds) {
          const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
          if (target.startsWith('socket:')) sockets += 1;
        }
        sample.peakSockets = Math.max(sample.peakSockets, sockets);
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm) sample.peakRssKb = Math.max(sample.peakRssKb, Number(hwm[1]));
      } catch {
        // The process ended between two reads.
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  void tick();
  return {
    stop: () => {
      running = false;
      return sample;
    },
  };
}

function runProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; wallMs: number; sample: Sample }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const probe = sampler(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      const sample = probe.stop();
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr.slice(0, 500)}`));
      else resolve({ stdout, stderr, wallMs, sample });
    });
  });
}

const work = await mkdtemp(join(tmpdir(), 'bench-netscan-'));
const binary = await buildEngineOf('netscan', join(work, 'dist', 'bin', 'netscan'));
const listeners = await startListeners();
const ports = [...TOP_TCP_PORTS.slice(0, 100), ...listeners.ports];
const scopeFile = join(work, 'scope.json');
const configFile = join(work, 'config.json');
await writeFile(scopeFile, JSON.stringify({ ports, rate: RATE, connect_timeout_ms: 1500, mode: 'vm' }));
await writeFile(configFile, JSON.stringify({ netscan: { max_in_flight: IN_FLIGHT, greeting_ms: 1000, read_timeout_ms: 1000 } }));
const expected = [...listeners.endpoints].sort();

async function netscan() {
  const result = await runProcess(
    process.execPath,
    [binary, 'scan', CIDR, '--scope-json', scopeFile, '--config', configFile, '--timeout', '600'],
    {
      PATH: process.env.PATH,
      NETSCAN_ALLOW_LOOPBACK: '1',
    },
  );
  const events = result.stderr
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { time: string; event: string; peak_in_flight?: number });
  const at = (event: string) => Date.parse(events.find((e) => e.event === event)!.time);
  const report = JSON.parse(result.stdout) as { findings: { rule_id: string; evidence: { address: string; port: number } }[] };
  const open = report.findings.filter((f) => f.rule_id === 'net.port.open').map((f) => `${f.evidence.address}:${f.evidence.port}`);
  return {
    portPhaseMs: at('port scan finished') - at('port scan started'),
    wallMs: result.wallMs,
    sockets: result.sample.peakSockets,
    inFlight: events.find((e) => e.event === 'port scan finished')?.peak_in_flight ?? 0,
    rssMb: result.sample.peakRssKb / 1024,
    open: open.sort(),
  };
}

async function nmap() {
  const args = [
    '-sT',
    '-Pn',
    '-n',
    '--max-retries',
    '0',
    '--max-rate',
    String(RATE),
    '--max-parallelism',
    String(IN_FLIGHT),
    '--max-rtt-timeout',
    '1500ms',
  ];
  const result = await runProcess(NMAP, [...args, '-p', ports.join(','), '-oX', '-', CIDR], { PATH: process.env.PATH });
  const open: string[] = [];
  for (const host of result.stdout.matchAll(/<host[\s>].*?<\/host>/gs)) {
    const address = /<address addr="([^"]+)"/.exec(host[0])?.[1];
    for (const port of host[0].matchAll(/<port protocol="tcp" portid="(\d+)"><state state="open"/g)) open.push(`${address}:${port[1]}`);
  }
  return { wallMs: result.wallMs, sockets: result.sample.peakSockets, open: open.sort() };
}

const rows: string[] = [];
const phaseRatios: number[] = [];
const wallRatios: number[] = [];
let peakRss = 0;
try {
  for (let run = 1; run <= RUNS; run += 1) {
    const ours = await netscan();
    const theirs = await nmap();
    for (const [tool, open] of [
      ['netscan', ours.open],
      ['nmap', theirs.open],
    ] as const) {
      if (JSON.stringify(open) !== JSON.stringify(expected))
        throw new Error(`run ${run}: ${tool} found ${open.join(', ')}, expected ${expected.join(', ')}`);
    }
    phaseRatios.push(ours.portPhaseMs / theirs.wallMs);
    wallRatios.push(ours.wallMs / theirs.wallMs);
    peakRss = Math.max(peakRss, ours.rssMb);
    rows.push(
      `run ${run}: netscan port scan ${ours.portPhaseMs.toFixed(0)} ms (whole run ${ours.wallMs.toFixed(0)} ms), ` +
        `${ours.inFlight} connecting at most, ${ours.sockets} sockets open at most, peak RSS ${ours.rssMb.toFixed(0)} MB | ` +
        `nmap ${theirs.wallMs.toFixed(0)} ms, ${theirs.sockets} sockets open at most`,
    );
  }
} finally {
  listeners.close();
}
const summary = (name: string, ratios: number[]) =>
  `${name}: min ${Math.min(...ratios).toFixed(2)}, median ${percentile(ratios, 50).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}`;
process.stdout.write(
  [
    `netscan vs nmap -sT: ${CIDR} × ${ports.length} ports (top100 + 3 listener ports) = ${256 * ports.length} connection attempts per run, rate cap ${RATE}/s, parallelism ${IN_FLIGHT}`,
    `open ports (both tools, every run): ${expected.join(', ')}`,
    ...rows,
    summary('ratio netscan port scan / nmap wall time (lower is faster)', phaseRatios),
    summary('ratio netscan whole run (port scan + service probes) / nmap wall time', wallRatios),
    `netscan peak RSS: ${peakRss.toFixed(0)} MB (goal < 256 MB)`,
    '',
  ].join('\n'),
);
