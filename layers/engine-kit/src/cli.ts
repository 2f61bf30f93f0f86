import type * as z from 'zod';
import type { LoadedCredential } from '../../../lib/credential.ts';
import { Deadline, DeadlineExceeded } from './deadline.ts';
import { EXIT, makeProgress, processIo, type CliIo, type Progress } from './progress.ts';
import type { EngineReport, ReportBuilder, Rule } from '../../../lib/report.ts';
import type { TargetPolicy } from '../../../lib/target-policy.ts';
import { removeTempFoldersOnExit } from './temp-folders.ts';
import type { TextLines } from './text-report.ts';

/** The scan cannot start at all (exit 3): the target resolves to nothing, or only to refused addresses. */
export class CouldNotStart extends Error {
  override readonly name = 'CouldNotStart';
}

/**
 * The command line or the settings are not usable (exit 2), found by an engine's `prepare`: a
 * config file its schema refuses, a malformed setting, scope fields that contradict each other.
 */
export class InvalidInput extends Error {
  override readonly name = 'InvalidInput';
}

/**
 * A flag of an engine's own, for a developer's local runs (the runner writes only --scope-json).
 * With `scopeField` it writes that field of the scope, so it cannot be given with --scope-json
 * (the scope file says it); without, it is a setting of this run, read from `flags`.
 */
export interface EngineFlag {
  type: 'string' | 'boolean';
  /** Given more than once, a list. */
  multiple?: boolean;
  /** The scope field it writes: a boolean flag writes `value` (default true), a string flag its text. */
  scopeField?: string;
  value?: unknown;
  /** For the usage text: the value's name (`FILE`, `NAME`). */
  valueName?: string;
  /** For the usage text: one line. */
  help: string;
}

/** The values of an engine's own flags that are settings, not scope, by flag name. */
export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** What `prepare` reads: the run's input, before the scan starts. */
export interface PrepareInput<Scope> {
  target: string;
  scope: Scope;
  config: Record<string, unknown>;
  /** The `--config` path when one was given, for messages. */
  configPath?: string;
  flags: FlagValues;
  env: Readonly<Record<string, string | undefined>>;
  timeoutSeconds: number;
}

/** The report fields an engine writes itself, over the frame's (its own extra fields included). */
export type ReportFields = Partial<EngineReport> & Record<string, unknown>;

/** What a scan gets from the frame. It records results in `report`; the frame prints it. */
export interface ScanContext<Scope, Prepared = undefined> {
  target: string;
  scope: Scope;
  /** The `--config FILE` object ({} without one). */
  config: Record<string, unknown>;
  deadline: Deadline;
  policy: TargetPolicy;
  report: ReportBuilder;
  progress: Progress;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
  /**
   * The tenant credential of `--credential-file` (DESIGN §16, lib/credential.ts), undefined without
   * one. Send it only where `credentialAllowsHost` says, never across a redirect to another origin,
   * and never print it (`credentialSecrets` lists what to redact).
   */
  credential?: LoadedCredential;
  /** The engine's own flags that are settings of this run (`EngineFlag` without `scopeField`). */
  flags: FlagValues;
  /** What `prepare` returned (undefined without one). */
  prepared: Prepared;
}

export interface EngineDefinition<Scope, Prepared = undefined> {
  /** The executable's name: tlsscan, secretscan, netscan. */
  name: string;
  version: string;
  /** The environment prefix of its settings: TLSSCAN, SECRETSCAN, NETSCAN. */
  envPrefix: string;
  /** One line: what the target is, for the usage text. */
  targetHelp: string;
  /** Loaded only by `rules` and `scan`: `--version` and `--help` never pay for it. */
  catalogue: () => readonly Rule[] | Promise<readonly Rule[]>;
  /** Loaded only by `scan` (a dynamic import keeps the schema's module out of `--version`). */
  scopeSchema: () => z.ZodType<Scope> | Promise<z.ZodType<Scope>>;
  /** The target as scanned (normalised), or a message saying why it is not a target (exit 2). */
  parseTarget: (raw: string) => { ok: true; target: string } | { ok: false; message: string };
  /**
   * Reads the run's settings before the scan starts (and before 'scan started' is logged): throws
   * `InvalidInput` (exit 2) or `CouldNotStart` (exit 3); what it returns is `context.prepared`.
   */
  prepare?: (input: PrepareInput<Scope>) => Promise<Prepared>;
  /**
   * Records results in `context.report`. An engine whose report carries more than the kit's
   * (mailscan's surfaces) returns those fields, and any it writes itself: the frame prints them over
   * its own. A scan may import its code on demand, so that `--version` and `rules` stay cheap.
   */
  scan: (context: ScanContext<Scope, Prepared>) => Promise<void | ReportFields>;
  /** Seconds when --timeout is not given. */
  defaultTimeoutSeconds?: number;
  /**
   * How long after the deadline the frame waits for a scan that ends itself at the deadline with
   * its own partial report (default 0: the frame cuts it off and reports its unfinished checks).
   */
  deadlineGraceMs?: number;
  /** The engine's own flags for local runs, by name (without `--`). */
  flags?: Readonly<Record<string, EngineFlag>>;
  /** Lines of `--format text` beside the kit's: `before` the title, `details` after the checks line. */
  textLines?: (report: EngineReport & Record<string, unknown>) => TextLines | Promise<TextLines>;
}

/** Any engine's definition, for the frame's own use. */
type AnyDefinition = EngineDefinition<unknown, unknown>;

const MAX_INPUT_FILE_BYTES = 1024 * 1024;

export function usageOf(definition: AnyDefinition): string {
  const { name } = definition;
  const flags = Object.entries(definition.flags ?? {});
  return [
    `usage: ${name} scan <target> [--scope-json FILE] [--credential-file FILE] [--timeout SECONDS] [--config FILE] [--format json|text]`,
    ...(flags.length > 0 ? [`       ${name} scan <target> [flags below] [--timeout SECONDS] [--config FILE] [--format json|text]`] : []),
    `       ${name} rules        the finding catalogue as JSON`,
    `       ${name} --version`,
    '',
    `target: ${definition.targetHelp}`,
    `Settings come from ${definition.envPrefix}_* environment variables; ${definition.envPrefix}_ALLOW_PRIVATE=1 and`,
    `${definition.envPrefix}_ALLOW_LOOPBACK=1 admit private and loopback targets.`,
    'stdout is the report; progress goes to stderr as JSON lines. Exit 0 report, 2 usage, 3 could not start.',
    ...(flags.length > 0
      ? ['', 'flags for local runs (the runner writes --scope-json; a flag marked scope cannot be given with it):']
      : []),
    ...flags.map(([flag, spec]) => {
      const written = `--${flag}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}${spec.multiple ? ' ...' : ''}`;
      return `  ${written.padEnd(28)} ${spec.help}${spec.scopeField === undefined ? '' : ` (scope ${spec.scopeField})`}`;
    }),
  ].join('\n');
}

class UsageError extends Error {}

/** The kit's own options; an engine's flag must not take one of their names. */
const KIT_OPTIONS = {
  'scope-json': { type: 'string' },
  'credential-file': { type: 'string' },
  timeout: { type: 'string' },
  config: { type: 'string' },
  format: { type: 'string' },
  version: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A target as it may be written to a log: credentials in it (`https://user:token@host/…`) are
 * masked. Engines refuse such targets, but the refusal must not print the token it refuses.
 */
export function redactTarget(target: string): string {
  return target.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@').slice(0, 500);
}

function readJsonFile(path: string, what: string): unknown {
  // node:fs when a file is read: imported, it is a chunk of an engine's bundle that `--version`
  // would load too; not fs/promises, which brings some fifteen of node's modules (docs/mailscan-startup.md).
  const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
  let text: string;
  try {
    if (statSync(path).size > MAX_INPUT_FILE_BYTES) throw new UsageError(`${what} ${path} is larger than 1 MiB`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${what} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${what} ${path} is not JSON`);
  }
}

interface ScanCommand {
  target: string;
  scopePath?: string;
  configPath?: string;
  credentialPath?: string;
  timeoutSeconds: number;
  format: 'json' | 'text';
  /** The scope fields the engine's flags wrote, or null when none was given. */
  flagScope: Record<string, unknown> | null;
  flags: FlagValues;
}

type Command = { kind: 'version' } | { kind: 'help' } | { kind: 'rules' } | ({ kind: 'scan' } & ScanCommand);

/**
 * The command line as the frame reads it; throws on a usage error. Exported for an engine's
 * start-up snapshot, which runs it once on a made-up line so that its code is compiled in the heap.
 */
export function parseCommandLine<Scope, Prepared>(definition: EngineDefinition<Scope, Prepared>, argv: readonly string[]): Command {
  return parse(argv, definition as unknown as AnyDefinition);
}

function parse(argv: readonly string[], definition: AnyDefinition): Command {
  // parseArgs alone, not node:util's namespace (as mailscan's args.ts): an import of node:util
  // becomes esbuild's namespace copy, and node 24 then loads what its lazy exports stand for
  // (worker_threads, locks, ~13 of node's modules) in every engine process.
  const { parseArgs } = process.getBuiltinModule('node:util');
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { ...engineOptions(definition), ...KIT_OPTIONS },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.version) return { kind: 'version' };
  if (values.help) return { kind: 'help' };
  const [command, ...rest] = positionals;
  if (command === 'rules') {
    if (rest.length > 0) throw new UsageError('rules takes no arguments');
    return { kind: 'rules' };
  }
  if (command !== 'scan') throw new UsageError(command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`);
  if (rest.length !== 1) throw new UsageError('scan takes exactly one target');
  const timeoutText = values.timeout ?? String(definition.defaultTimeoutSeconds ?? 300);
  const timeoutSeconds = Number(timeoutText);
  if (!/^\d+(\.\d+)?$/.test(timeoutText) || timeoutSeconds <= 0 || timeoutSeconds > 3600) {
    throw new UsageError('--timeout must be a number of seconds from 1 to 3600');
  }
  const format = values.format ?? 'json';
  if (format !== 'json' && format !== 'text') throw new UsageError('--format must be json or text');
  const given = values as Record<string, string | boolean | string[] | undefined>;
  const flags: Record<string, string | boolean | string[] | undefined> = {};
  let flagScope: Record<string, unknown> | null = null;
  for (const [flag, spec] of Object.entries(definition.flags ?? {})) {
    const value = given[flag];
    if (spec.scopeField === undefined) flags[flag] = value;
    else if (value !== undefined) {
      if (values['scope-json'] !== undefined) throw new UsageError(`--${flag} cannot be given with --scope-json: the scope file says it`);
      (flagScope ??= {})[spec.scopeField] = spec.type === 'boolean' ? (spec.value ?? true) : value;
    }
  }
  return {
    kind: 'scan',
    flagScope,
    flags,
    target: rest[0],
    scopePath: values['scope-json'],
    configPath: values.config,
    credentialPath: values['credential-file'],
    timeoutSeconds,
    format,
  };
}

/** The engine's flags as node:util's parseArgs options. */
function engineOptions(definition: AnyDefinition): Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [flag, spec] of Object.entries(definition.flags ?? {})) {
    if (flag in KIT_OPTIONS) throw new Error(`${definition.name}'s flag --${flag} is one of the kit's`);
    options[flag] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) };
  }
  return options;
}

/** Runs one command of an engine's CLI and returns the exit code (DESIGN §11). */
export async function runEngineCli<Scope, Prepared = undefined>(
  definition: EngineDefinition<Scope, Prepared>,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const log = makeProgress(io);
  const def = definition as unknown as AnyDefinition;
  let command: Command;
  try {
    command = parse(argv, def);
  } catch (error) {
    log.error('usage error', { message: errorMessage(error), usage: usageOf(def) });
    return EXIT.usage;
  }
  if (command.kind === 'version') {
    io.stdout(`${definition.name} ${definition.version}\n`);
    return EXIT.ok;
  }
  if (command.kind === 'help') {
    io.stdout(`${usageOf(def)}\n`);
    return EXIT.ok;
  }
  const scanner = { name: definition.name, version: definition.version };
  const catalogue = await definition.catalogue();
  if (command.kind === 'rules') {
    io.stdout(`${JSON.stringify({ scanner, rules: catalogue }, null, 2)}\n`);
    return EXIT.ok;
  }

  let scope: Scope;
  let config: Record<string, unknown> = {};
  let credential: LoadedCredential | undefined;
  let target: string;
  let prepared: Prepared;
  try {
    const raw = command.scopePath === undefined ? (command.flagScope ?? {}) : readJsonFile(command.scopePath, 'the scope file');
    const result = (await definition.scopeSchema()).safeParse(raw);
    if (!result.success) {
      throw new UsageError(
        `the scope is not valid: ${result.error.issues.map((issue) => `${issue.path.join('.') || '(scope)'}: ${issue.message}`).join('; ')}`,
      );
    }
    scope = result.data;
    if (command.configPath !== undefined) {
      const value = readJsonFile(command.configPath, 'the config file');
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new UsageError('the config file must hold a JSON object');
      config = value as Record<string, unknown>;
    }
    if (command.credentialPath !== undefined) {
      // Loaded only with a credential: its module (zod, node:crypto) costs every other scan nothing.
      const { CredentialFileError, loadCredential } = await import('../../../lib/credential.ts');
      try {
        credential = await loadCredential(command.credentialPath);
      } catch (error) {
        throw error instanceof CredentialFileError ? new UsageError(error.message) : error;
      }
    }
    const parsedTarget = definition.parseTarget(command.target);
    if (!parsedTarget.ok) throw new UsageError(`${JSON.stringify(redactTarget(command.target))} is not a target: ${parsedTarget.message}`);
    target = parsedTarget.target;
    prepared = (await definition.prepare?.({
      target,
      scope,
      config,
      ...(command.configPath === undefined ? {} : { configPath: command.configPath }),
      flags: command.flags,
      env: io.env,
      timeoutSeconds: command.timeoutSeconds,
    })) as Prepared;
  } catch (error) {
    if (error instanceof CouldNotStart) {
      log.error('could not start', { target: redactTarget(command.target), message: error.message });
      return EXIT.couldNotStart;
    }
    if (!(error instanceof UsageError || error instanceof InvalidInput)) throw error;
    log.error('usage error', { message: errorMessage(error), usage: usageOf(def) });
    return EXIT.usage;
  }

  // Loaded for a scan only (one chunk of an engine's bundle): the report's module brings zod, the policy's node:dns.
  const { ReportBuilder, policyFromEnv, TargetRefused } = await import('./scan-support.ts');
  const report: ReportBuilder = new ReportBuilder({ scanner, target, catalogue, now: io.now });
  const deadline = new Deadline(command.timeoutSeconds * 1000);
  // A scan that ends itself at its deadline gets this long to hand in its own partial report.
  const cutOff = definition.deadlineGraceMs ? new Deadline(command.timeoutSeconds * 1000 + definition.deadlineGraceMs) : deadline;
  const policy = policyFromEnv(definition.envPrefix, io.env);
  log.info('scan started', { target, timeout_seconds: command.timeoutSeconds });
  const scan = definition.scan({
    target,
    scope,
    config,
    deadline,
    policy,
    report,
    progress: log.info,
    env: io.env,
    now: io.now,
    credential,
    flags: command.flags,
    prepared,
  });
  let own: void | ReportFields = undefined;
  try {
    own = await cutOff.within(scan, 'the scan');
  } catch (error) {
    if (error instanceof CouldNotStart || error instanceof TargetRefused) {
      log.error('could not start', { target, message: error.message });
      return EXIT.couldNotStart;
    }
    if (error instanceof DeadlineExceeded) {
      scan.catch(() => {});
      log.info('deadline passed', { timeout_seconds: command.timeoutSeconds });
      report.errorUnfinished("the scan's deadline passed before this check finished");
    } else {
      // A bug in a check must not turn into "no findings": every unfinished check is an error.
      log.error('scan failed', { message: errorMessage(error) });
      report.errorUnfinished(`the scan failed: ${errorMessage(error)}`);
    }
  }
  const finished = { ...report.finish(), ...own } as EngineReport & Record<string, unknown>;
  log.info('scan finished', { status: finished.status, findings: finished.findings.length, errors: finished.errors.length });
  if (command.format === 'json') io.stdout(`${JSON.stringify(finished)}\n`);
  else io.stdout((await import('./text-report.ts')).renderText(finished, await definition.textLines?.(finished)));
  return EXIT.ok;
}

/**
 * The executable's body (`src/bin/<engine>.ts`): runs the CLI on this process and exits once
 * stdout is flushed, so a probe abandoned at the deadline cannot keep the process alive.
 */
export async function engineMain<Scope, Prepared = undefined>(definition: EngineDefinition<Scope, Prepared>): Promise<void> {
  removeTempFoldersOnExit();
  const io = processIo();
  const code = await runEngineCli(definition, process.argv.slice(2), io).catch((error: unknown) => {
    makeProgress(io).error('internal error', { message: error instanceof Error ? error.message : String(error) });
    return 1;
  });
  process.stdout.write('', () => process.exit(code));
}
