import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The arguments of one local CLI, parsed strictly. `--help` / `-h` prints the usage on stdout and
 * exits 0; an unknown option or a missing value prints the reason and the usage on stderr and
 * exits 2 (never node's ERR_PARSE_ARGS_* stack trace).
 */
export function parseCommandLine<O extends Options>(
  usage: string,
  options: O,
  argv = process.argv.slice(2),
): ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'] {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    usageError(usage, (error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  delete values.help;
  return values as ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'];
}

/** A usage error: the reason, then the usage, on stderr; exit 2. */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

export const DEFAULT_DATA_DIR = '.data';

/** The data directory every local command uses: `DATA_DIR`, else `.data/`, absolute. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR ?? DEFAULT_DATA_DIR);
}

/** The loopback port of the running local service (`PORT`, else 3000). */
export function portFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.PORT ?? 3000);
}

/**
 * How to run `command` against this server from another shell: the variables it was started
 * with are spelled out when they differ from the defaults, so a second shell finds the same key
 * and port (a bare `npm run session` would read `.data/` and sign with a key nobody checks).
 */
export function commandFor(command: string, settings: { dataDir: string; port?: number }): string {
  const env: string[] = [];
  if (settings.dataDir !== resolve(DEFAULT_DATA_DIR)) env.push(`DATA_DIR=${shellWord(settings.dataDir)}`);
  if (settings.port !== undefined && settings.port !== 3000) env.push(`PORT=${settings.port}`);
  return [...env, command].join(' ');
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
