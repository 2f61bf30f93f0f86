import { SCANNER_NAME, SCANNER_VERSION } from '../version.ts';
import { parseArgs, USAGE } from './args.ts';
import { EXIT, makeStderrLog, type CliIo } from './io.ts';

/** Parses the command line and runs one command; returns the exit code (DESIGN §6). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(argv);
  if (!parsed.ok) {
    makeStderrLog(io).error('usage error', { message: parsed.message, usage: USAGE });
    return EXIT.usage;
  }
  const command = parsed.command;
  switch (command.kind) {
    case 'version':
      io.stdout(`${SCANNER_NAME} ${SCANNER_VERSION}\n`);
      return EXIT.ok;
    case 'help':
      io.stdout(`${USAGE}\n`);
      return EXIT.ok;
    case 'rules': {
      // Loaded on demand like the scan: --version should not parse the catalogue. The kit's Rule
      // shape (docs/engine-contract.md), the surface a tag, as every engine prints its rules.
      const { kitRules } = await import('../catalogue.ts');
      io.stdout(`${JSON.stringify({ scanner: { name: SCANNER_NAME, version: SCANNER_VERSION }, rules: kitRules() }, null, 2)}\n`);
      return EXIT.ok;
    }
    case 'scan': {
      await import('./zod-jitless.ts');
      // Loaded on demand: the scan's dependencies (zod, the public suffix list) cost time to
      // initialise, which --version and rules should not pay.
      const { runScanCommand } = await import('./scan-command.ts');
      return runScanCommand(command, io);
    }
  }
}
