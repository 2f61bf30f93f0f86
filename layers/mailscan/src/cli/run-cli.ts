import { main } from './main.ts';

/**
 * Runs the CLI as a process: `main` with the process's streams, then exits once stdout is flushed.
 * Exits explicitly: a check abandoned at the deadline may still hold a socket, and it must not keep
 * the process (and the runner waiting on it) alive. Both entries use it: the bundle's
 * (bin/mailscan.ts) and the start-up snapshot's (bin/mailscan-snapshot.ts).
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  const exitCode = await main(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
  }).catch((error: unknown) => {
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'error', event: 'internal error', message: error instanceof Error ? error.message : String(error) })}\n`,
    );
    return 1;
  });
  process.stdout.write('', () => process.exit(exitCode));
}
