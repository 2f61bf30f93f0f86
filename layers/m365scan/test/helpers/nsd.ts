/**
 * A real NSD (Debian's `nsd`) on loopback serving zone-file fixtures: the authoritative answers
 * m365scan and mailscan both read in these tests. It runs in the foreground (`-d`) from a
 * temporary folder with its own config, on a free port, and is ready when it answers the first
 * zone's SOA.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRawResolver } from '../../../../lib/dns/raw-resolver.ts';

export interface RunningNsd {
  /** `127.0.0.1:<port>`, the form of M365SCAN_NAMESERVERS and mailscan's --nameserver. */
  address: string;
  port: number;
  stop(): Promise<void>;
}

/** A port free for TCP and UDP on 127.0.0.1 now. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const socket = createSocket('udp4');
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
}

/**
 * Starts NSD with every `<origin>.zone` file of `zoneDir` (the file name is the zone's name), with
 * `{{HTTPS_ADDRESS}}` in the zone files replaced by `httpsAddress`.
 */
export async function startNsd(zoneDir: string, replacements: Record<string, string> = {}): Promise<RunningNsd> {
  const dir = await mkdtemp(join(tmpdir(), 'm365scan-nsd-'));
  const files = (await readdir(zoneDir)).filter((name) => name.endsWith('.zone'));
  const zones: string[] = [];
  for (const file of files) {
    let text = await readFile(join(zoneDir, file), 'utf8');
    for (const [key, value] of Object.entries(replacements)) text = text.replaceAll(`{{${key}}}`, value);
    await writeFile(join(dir, file), text);
    zones.push(file.slice(0, -'.zone'.length));
  }
  for (let attempt = 0; ; attempt += 1) {
    const port = await freePort();
    const config = [
      'server:',
      `  ip-address: 127.0.0.1@${port}`,
      `  port: ${port}`,
      '  username: ""',
      '  chroot: ""',
      `  zonesdir: "${dir}"`,
      `  pidfile: "${dir}/nsd.pid"`,
      `  xfrdfile: "${dir}/xfrd.state"`,
      `  zonelistfile: "${dir}/zone.list"`,
      '  database: ""',
      `  logfile: "${dir}/nsd.log"`,
      '  server-count: 1',
      '  verbosity: 1',
      '  hide-version: yes',
      'remote-control:',
      '  control-enable: no',
      ...zones.flatMap((zone) => ['zone:', `  name: "${zone}"`, `  zonefile: "${zone}.zone"`]),
    ].join('\n');
    await writeFile(join(dir, 'nsd.conf'), `${config}\n`);
    const child = spawn('nsd', ['-d', '-c', join(dir, 'nsd.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const ready = await waitReady(port, zones[0], exited);
    if (ready) {
      return {
        address: `127.0.0.1:${port}`,
        port,
        stop: async () => {
          await stopChild(child, exited);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    await stopChild(child, exited);
    if (attempt >= 2) {
      const log = await readFile(join(dir, 'nsd.log'), 'utf8').catch(() => '');
      await rm(dir, { recursive: true, force: true });
      throw new Error(`nsd did not start: ${output} ${log}`);
    }
  }
}

async function waitReady(port: number, zone: string, exited: Promise<number | null>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const resolver = makeRawResolver({ servers: [{ host: '127.0.0.1', port }], timeoutMs: 100, attempts: 1 });
  // Each query waits up to 100 ms for an answer: the loop waits on NSD, not on a timer.
  for (const until = Date.now() + 10_000; Date.now() < until && !gone;) {
    const answer = await resolver.query(zone, 'SOA');
    if (answer.status === 'found') return true;
  }
  return false;
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited;
}
