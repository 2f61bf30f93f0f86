/**
 * Ports for the real servers the tests start on loopback (nginx, xrdp, Orthanc, dcmtk…): a free
 * one, whether one accepts, and waiting until a started server listens (polled on connection
 * events, no fixed sleep), or failing with what the server printed when it exits first.
 */
import type { ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 now. */
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

/** Whether something accepts a connection on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Resolves once every port accepts; throws when `child` exits first or `withinMs` passes, naming
 * `what` and ending with `output()` (the server's own words: its stderr, its log).
 */
export async function waitForListening(
  child: ChildProcess,
  ports: readonly number[],
  { what, output = () => '', withinMs = 15_000 }: { what: string; output?: () => string; withinMs?: number },
): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before listening: ${output().slice(-2000)}`);
    if ((await Promise.all(ports.map(accepts))).every(Boolean)) return;
    if (Date.now() - started > withinMs)
      throw new Error(`${what} did not listen on ${ports.join(', ')} within ${withinMs / 1000} s: ${output().slice(-2000)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
