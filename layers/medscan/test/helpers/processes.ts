/** Loopback servers as child processes (dcmtk, Orthanc), on free ports, stopped by their own pid. */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, waitForListening } from '../../../../test/helpers/loopback-ports.ts';

export { freePort };

/** Resolves once the port accepts a connection (polled on connection events, no fixed sleep). */
export const waitForPort = (port: number, child: ChildProcess, withinMs = 15_000): Promise<void> =>
  waitForListening(child, [port], { what: 'the server', withinMs });

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
