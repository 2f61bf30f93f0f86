/** Loopback servers as child processes (dcmtk, Orthanc), on free ports, stopped by their own pid. */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the port accepts a connection (polled on connection events, no fixed sleep). */
export async function waitForPort(port: number, child: ChildProcess, withinMs = 15_000): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before listening on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nothing listened on ${port} within ${withinMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface Started {
  child: ChildProcess;
  /** Everything the server wrote: its log of what it received. */
  log: () => string;
  stop: () => Promise<void>;
}

export function start(command: string, args: readonly string[], cwd?: string): Started {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString('latin1')));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('latin1')));
  return {
    child,
    log: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
