/**
 * npm run bench:vdi [-- --runs 5]: vdiscan against nmap 7.93 with `rdp-enum-encryption` and
 * `vnc-info` on one RDP port (Debian xrdp, security_layer=rdp, crypt_level=low) and one VNC port
 * (TigerVNC Xvnc, SecurityTypes=None), both on loopback:
 *
 *   vdiscan: scan 127.0.0.1 --scope-json {ports: [rdp, vnc], rdp_tls: false}
 *   nmap:    -Pn -n -p <rdp> --script +rdp-enum-encryption 127.0.0.1, then
 *            -Pn -n -p <vnc> --script +vnc-info 127.0.0.1 (wall times added)
 *
 * Two nmap runs, not one with both scripts: `+` forces a script onto every port, so one run would
 * send RDP requests to Xvnc (whose blacklist then refuses 127.0.0.1 for a while: "Too many
 * security failures") and wait out vnc-info on the RDP port.
 * `rdp_tls: false` keeps the work equal: nmap's two scripts do not scan RDP's TLS layer (this
 * server has none anyway). Runs interleaved (vdiscan, nmap, vdiscan, nmap, ...) after one warm-up
 * round; prints each run's wall time and peak RSS (VmHWM, sampled every 10 ms), then min / median /
 * max of the paired ratios vdiscan ÷ nmap. Every run must reach the same verdicts, or the bench
 * fails: standard RDP accepted (nmap "Native RDP: SUCCESS"), the encryption level (nmap's
 * "RDP Encryption level"), VNC's security types and the no-authentication warning.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildEngineOf } from '../layers/build.ts';
import { startXrdp, startXvnc } from '../layers/vdiscan/test/helpers/desktops.ts';
import type { EngineReport } from '../lib/report.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);

interface Run {
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssKb: number;
}

/** Runs a process to its end, sampling its VmHWM every 10 ms. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let peakRssKb = 0;
    const timer = setInterval(() => {
      readFile(`/proc/${child.pid}/status`, 'utf8')
        .then((status) => {
          const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
          if (hwm) peakRssKb = Math.max(peakRssKb, Number(hwm[1]));
        })
        .catch(() => {});
    }, 10);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(timer);
      const wallMs = performance.now() - started;
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr.slice(0, 500)}`));
      else resolve({ stdout, stderr, wallMs, peakRssKb });
    });
  });
}

const work = await mkdtemp(join(tmpdir(), 'bench-vdiscan-'));
const binary = await buildEngineOf('vdiscan', join(work, 'dist', 'bin', 'vdiscan'));
// TigerVNC blacklists a client after five connections that end before authentication (both tools
// make such connections every round): the bench's server has the blacklist off.
const [rdp, vnc] = await Promise.all([startXrdp('rdp', 'low'), startXvnc('None', undefined, ['-BlacklistThreshold', '1000000'])]);
const scopeFile = join(work, 'scope.json');
await writeFile(scopeFile, JSON.stringify({ ports: [rdp.port, vnc.port], rdp_tls: false }));

interface Verdicts {
  standardRdp: boolean;
  encryptionLevel: string;
  vncTypes: number[];
  vncNoAuth: boolean;
}

const LEVELS: Record<string, string> = { LOW: 'Low', CLIENT_COMPATIBLE: 'Client Compatible', HIGH: 'High', FIPS: 'FIPS Compliant' };

function vdiscanVerdicts(output: Run): Verdicts {
  const report = JSON.parse(output.stdout) as EngineReport;
  const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
  const weak = report.findings.find((f) => f.rule_id === 'vdi.rdp.weak_encryption');
  const types = output.stderr.split('\n').find((line) => line.includes('vdi.vnc.types'));
  return {
    standardRdp: status('vdi.rdp.standard_security') === 'fail',
    encryptionLevel: LEVELS[String(weak?.evidence.encryption_level)] ?? 'High',
    vncTypes: types ? (JSON.parse(types) as { types: number[] }).types.sort((a, b) => a - b) : [],
    vncNoAuth: status('vdi.vnc.no_auth') === 'fail',
  };
}

function nmapVerdicts(output: Run): Verdicts {
  const text = output.stdout;
  const vncSection = text.slice(text.indexOf('vnc-info'));
  return {
    standardRdp: /Native RDP: SUCCESS/.test(text),
    encryptionLevel: /RDP Encryption level: (\S.*)$/m.exec(text)?.[1]?.trim() ?? 'none',
    vncTypes: [...vncSection.matchAll(/^\|_?\s+.*\((\d+)\)\s*$/gm)].map((m) => Number(m[1])).sort((a, b) => a - b),
    vncNoAuth: text.includes('Server does not require authentication'),
  };
}

try {
  const samples = await interleaved(
    {
      vdiscan: () =>
        run(process.execPath, [binary, 'scan', '127.0.0.1', '--scope-json', scopeFile], { ...process.env, VDISCAN_ALLOW_LOOPBACK: '1' }),
      nmap: async () => {
        const first = await run('nmap', ['-Pn', '-n', '-p', String(rdp.port), '--script', '+rdp-enum-encryption', '127.0.0.1']);
        const second = await run('nmap', ['-Pn', '-n', '-p', String(vnc.port), '--script', '+vnc-info', '127.0.0.1']);
        return {
          stdout: first.stdout + second.stdout,
          stderr: first.stderr + second.stderr,
          wallMs: first.wallMs + second.wallMs,
          peakRssKb: Math.max(first.peakRssKb, second.peakRssKb),
        };
      },
    },
    RUNS,
  );
  for (let i = 0; i < RUNS; i++) {
    const ours = vdiscanVerdicts(samples.vdiscan[i]);
    const theirs = nmapVerdicts(samples.nmap[i]);
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      throw new Error(`run ${i + 1}: verdicts differ: vdiscan ${JSON.stringify(ours)} nmap ${JSON.stringify(theirs)}`);
    }
    process.stdout.write(
      `run ${i + 1}: vdiscan ${samples.vdiscan[i].wallMs.toFixed(0)} ms (peak RSS ${(samples.vdiscan[i].peakRssKb / 1024).toFixed(1)} MB), nmap ${samples.nmap[i].wallMs.toFixed(0)} ms; verdicts ${JSON.stringify(ours)}\n`,
    );
  }
  const wall = (name: 'vdiscan' | 'nmap') => samples[name].map((s) => s.wallMs);
  process.stdout.write(
    `wall time vdiscan ÷ nmap: ${formatSpread(pairedRatios(wall('vdiscan'), wall('nmap')), '', 2)} (median (min–max))\n`,
  );
  process.stdout.write(`vdiscan wall: ${formatSpread(wall('vdiscan'), ' ms')}; nmap wall: ${formatSpread(wall('nmap'), ' ms')}\n`);
  process.stdout.write(
    `vdiscan peak RSS: ${formatSpread(
      samples.vdiscan.map((s) => s.peakRssKb / 1024),
      ' MB',
      1,
    )}\n`,
  );
} finally {
  await Promise.all([rdp.stop(), vnc.stop()]);
  await rm(work, { recursive: true, force: true });
}
