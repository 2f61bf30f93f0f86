import { main } from '../cli/main.ts';

/**
 * The executable. Exits explicitly once stdout is flushed: a check abandoned at the deadline may
 * still hold a socket, and it must not keep the process (and the runner waiting on it) alive.
 */
const exitCode = await main(process.argv.slice(2), {
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
