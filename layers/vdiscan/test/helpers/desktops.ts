/**
 * Real remote-desktop servers for vdiscan's tests, from Debian, on loopback: xrdp (a config dir of
 * its own per server, foreground, no sesman: negotiation needs none), freerdp-shadow-cli under
 * Xvfb for NLA, and TigerVNC's Xvnc with the security types asked for. Each is stopped by its own
 * process id; each keeps its log, so a test reads what the server saw.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, waitForListening } from '../../../../test/helpers/loopback-ports.ts';

export { freePort };

export interface Running {
  port: number;
  dir: string;
  /** The server's log (xrdp's log file, or the process's output). */
  log: () => Promise<string>;
  stop: () => Promise<void>;
}

function collect(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return () => output;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Resolves once `predicate(output)` holds; rejects when the process exits first or after 45 s. */
function waitFor(child: ChildProcess, output: () => string, predicate: (text: string) => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (predicate(output())) return done(null);
    };
    const onExit = (): void => done(new Error(`${what} exited: ${output().slice(-2000)}`));
    const timer = setTimeout(() => done(new Error(`${what} did not start within 45 s: ${output().slice(-2000)}`)), 45_000);
    function done(error: Error | null): void {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

const waitForPort = (child: ChildProcess, output: () => string, port: number, what: string): Promise<void> =>
  waitForListening(child, [port], { what, output, withinMs: 45_000 });

export type SecurityLayer = 'rdp' | 'tls' | 'negotiate';
export type CryptLevel = 'none' | 'low' | 'medium' | 'high' | 'fips';

/** xrdp with `security_layer` and `crypt_level`, its own xrdp.ini and log in a temp dir. */
export async function startXrdp(securityLayer: SecurityLayer, cryptLevel: CryptLevel): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'vdiscan-xrdp-'));
  const port = await freePort();
  const logFile = join(dir, 'xrdp.log');
  await writeFile(
    join(dir, 'xrdp.ini'),
    `[Globals]
ini_version=1
fork=false
port=tcp://127.0.0.1:${port}
security_layer=${securityLayer}
crypt_level=${cryptLevel}
certificate=/etc/xrdp/cert.pem
key_file=/etc/xrdp/key.pem
ssl_protocols=TLSv1.2, TLSv1.3
max_bpp=32
[Logging]
LogFile=${logFile}
LogLevel=INFO
EnableSyslog=false
[Xorg]
name=Xorg
lib=libxup.so
username=ask
password=ask
ip=127.0.0.1
port=-1
code=20
`,
  );
  const child = spawn('xrdp', ['--nodaemon', '--config', join(dir, 'xrdp.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child);
  await waitForPort(child, output, port, 'xrdp');
  return {
    port,
    dir,
    log: () => readFile(logFile, 'utf8').catch(() => output()),
    stop: async () => {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** An X server for the shadow server, on a display Xvfb picks. */
async function startXvfb(): Promise<{ display: string; stop: () => Promise<void> }> {
  // A display number of its own (from a free port), not -displayfd's first free one: Xvnc servers
  // of other test files start at the same moment and race for the low numbers.
  const number = 200 + ((await freePort()) % 700);
  const child = spawn('Xvfb', [`:${number}`, '-displayfd', '1', '-screen', '0', '640x480x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const output = collect(child);
  await waitFor(
    child,
    () => stdout,
    (text) => /^\d+\n/.test(text),
    'Xvfb',
  ).catch((error: Error) => {
    throw new Error(`${error.message} ${output()}`);
  });
  // The display number is written once Xvfb runs; its socket is what the shadow server opens, so
  // wait until that accepts too (under load the number came first and the shadow server failed).
  const socketPath = `/tmp/.X11-unix/X${stdout.trim()}`;
  const started = Date.now();
  while (!(await acceptsPath(socketPath))) {
    if (child.exitCode !== null || Date.now() - started > 45_000) {
      await stopChild(child);
      throw new Error(`Xvfb's socket ${socketPath} never accepted: ${output().slice(-2000)}`);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { display: `:${stdout.trim()}`, stop: () => stopChild(child) };
}

function acceptsPath(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** freerdp-shadow-cli requiring NLA (`/sec:nla`), sharing an Xvfb screen. */
type Shadow = Running & { display: string; until: (predicate: (log: string) => boolean) => Promise<void> };

/**
 * freerdp-shadow-cli requiring NLA (`/sec:nla`), sharing an Xvfb screen. About one start in ten
 * on this machine, the shadow server cannot open a display whose socket already accepted
 * ("failed to open display"; cause not found): that start is retried on a new Xvfb, twice at most.
 */
export async function startShadowNla(): Promise<Shadow> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startShadowOnce();
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('failed to open display')) throw error;
    }
  }
}

async function startShadowOnce(): Promise<Shadow> {
  const xvfb = await startXvfb();
  const dir = await mkdtemp(join(tmpdir(), 'vdiscan-shadow-'));
  const port = await freePort();
  // stdbuf: WLog writes to stdout, block-buffered on a pipe; the tests read the log as it happens.
  const child = spawn('stdbuf', ['-oL', '-eL', 'freerdp-shadow-cli', `/port:${port}`, '/bind-address:127.0.0.1', '/sec:nla'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DISPLAY: xvfb.display, HOME: dir },
  });
  const output = collect(child);
  try {
    await waitFor(child, output, (text) => text.includes(`Listening on [127.0.0.1]:${port}`), 'freerdp-shadow-cli');
  } catch (error) {
    await stopChild(child);
    await xvfb.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    dir,
    display: xvfb.display,
    log: () => Promise.resolve(output()),
    /** Resolves when the log satisfies `predicate` (the server logs after the client has gone). */
    until: (predicate) => waitFor(child, output, predicate, 'freerdp-shadow-cli log'),
    stop: async () => {
      await stopChild(child);
      await xvfb.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const VNC_PASSWORD = 'vdi-test';

/** TigerVNC's Xvnc offering `securityTypes` (e.g. `None`, `VncAuth`, `TLSVnc`, `X509Vnc,VncAuth`). */
export async function startXvnc(securityTypes: string, onPort?: number, extra: readonly string[] = []): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'vdiscan-xvnc-'));
  const port = onPort ?? (await freePort());
  const passwordFile = join(dir, 'passwd');
  const encoded = spawn('vncpasswd', ['-f'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  encoded.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  encoded.stdin.end(`${VNC_PASSWORD}\n`);
  await new Promise((resolve) => encoded.once('exit', resolve));
  await writeFile(passwordFile, Buffer.concat(chunks));
  const child = spawn(
    'Xvnc',
    [
      '-displayfd',
      '1',
      '-rfbport',
      String(port),
      '-interface',
      '127.0.0.1',
      '-nolisten',
      'tcp',
      '-SecurityTypes',
      securityTypes,
      '-PasswordFile',
      passwordFile,
      '-X509Cert',
      '/etc/xrdp/cert.pem',
      '-X509Key',
      '/etc/xrdp/key.pem',
      '-Log',
      '*:stderr:100',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = collect(child);
  await waitForPort(child, output, port, 'Xvnc');
  return {
    port,
    dir,
    log: () => Promise.resolve(output()),
    stop: async () => {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
