import { runCli } from '../cli/run-cli.ts';

/** The executable (the bundle the launcher imports). */
await runCli(process.argv.slice(2));
