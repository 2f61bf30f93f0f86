import { readFile, stat } from 'node:fs/promises';
import type * as z from 'zod';
import { CredentialFileError, loadCredential, type LoadedCredential } from '../../../lib/credential.ts';
import { Deadline, DeadlineExceeded } from './deadline.ts';
import { EXIT, makeProgress, processIo, type CliIo, type Progress } from './progress.ts';
import { ReportBuilder, type EngineReport, type Rule } from '../../../lib/report.ts';
import { policyFromEnv, TargetRefused, type TargetPolicy } from '../../../lib/target-policy.ts';
import { removeTempFoldersOnExit } from './temp-folders.ts';
import { renderText } from './text-report.ts';

/** The scan cannot start at all (exit 3): the target resolves to nothing, or only to refused addresses. */
export class CouldNotStart extends Error {
  override readonly name = 'CouldNotStart';
}

/** What a scan gets from the frame. It records results in `report`; the frame prints it. */
export interface ScanContext<Scope> {
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
}

export interface EngineDefinition<Scope> {
  /** The executable's name: tlsscan, secretscan, netscan. */
  name: string;
  version: string;
  /** The environment prefix of its settings: TLSSCAN, SECRETSCAN, NETSCAN. */
  envPrefix: string;
  /** One line: what the target is, for the usage text. */
  targetHelp: string;
  catalogue: () => readonly Rule[] | Promise<readonly Rule[]>;
  scopeSchema: () => z.ZodType<Scope>;
  /** The target as scanned (normalised), or a message saying why it is not a target (exit 2). */
  parseTarget: (raw: string) => { ok: true; target: string } | { ok: false; message: string };
  scan: (context: ScanContext<Scope>) => Promise<void>;
  /** Seconds when --timeout is not given. */
  defaultTimeoutSeconds?: number;
}

const MAX_INPUT_FILE_BYTES = 1024 * 1024;

export function usageOf(definition: EngineDefinition<unknown>): string {
  const { name } = definition;
  return [
    `usage: ${name} scan <target> [--scope-json FILE] [--credential-file FILE] [--timeout SECONDS] [--config FILE] [--format json|text]`,
    `       ${name} rules        the finding catalogue as JSON`,
    `       ${name} --version`,
    '',
    `target: ${definition.targetHelp}`,
    `Settings come from ${definition.envPrefix}_* environment variables; ${definition.envPrefix}_ALLOW_PRIVATE=1 and`,
    `${definition.envPrefix}_ALLOW_LOOPBACK=1 admit private and loopback targets.`,
    'stdout is the report; progress goes to stderr as JSON lines. Exit 0 report, 2 usage, 3 could not start.',
  ].join('\n');
}

class UsageError extends Error {}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A target as it may be written to a log: credentials in it (`https://user:token@host/…`) are
 * masked. Engines refuse such targets, but the refusal must not print the token it refuses.
 */
export function redactTarget(target: string): string {
  return target.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@').slice(0, 500);
}

async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    if ((await stat(path)).size > MAX_INPUT_FILE_BYTES) throw new UsageError(`${what} ${path} is larger than 1 MiB`);
    text = await readFile(path, 'utf8');
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
}

type Command = { kind: 'version' } | { kind: 'help' } | { kind: 'rules' } | ({ kind: 'scan' } & ScanCommand);

function parse(argv: readonly string[], definition: EngineDefinition<unknown>): Command {
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
      options: {
        'scope-json': { type: 'string' },
        'credential-file': { type: 'string' },
        timeout: { type: 'string' },
        config: { type: 'string' },
        format: { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.version) return { kind: 'version' };
  if (values.help) return { kind: 'help' };
  const [command, ...rest] = positionals;
  if (command === 'rules' && rest.length === 0) return { kind: 'rules' };
  if (command !== 'scan') throw new UsageError(command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`);
  if (rest.length !== 1) throw new UsageError('scan takes exactly one target');
  const timeoutText = values.timeout ?? String(definition.defaultTimeoutSeconds ?? 300);
  const timeoutSeconds = Number(timeoutText);
  if (!/^\d+(\.\d+)?$/.test(timeoutText) || timeoutSeconds <= 0 || timeoutSeconds > 3600) {
    throw new UsageError('--timeout must be a number of seconds from 1 to 3600');
  }
  const format = values.format ?? 'json';
  if (format !== 'json' && format !== 'text') throw new UsageError('--format must be json or text');
  return {
    kind: 'scan',
    target: rest[0],
    scopePath: values['scope-json'],
    configPath: values.config,
    credentialPath: values['credential-file'],
    timeoutSeconds,
    format,
  };
}

/** Runs one command of an engine's CLI and returns the exit code (DESIGN §11). */
export async function runEngineCli<Scope>(definition: EngineDefinition<Scope>, argv: readonly string[], io: CliIo): Promise<number> {
  const log = makeProgress(io);
  const def = definition as EngineDefinition<unknown>;
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
  try {
    const raw = command.scopePath === undefined ? {} : await readJsonFile(command.scopePath, 'the scope file');
    const result = definition.scopeSchema().safeParse(raw);
    if (!result.success) {
      throw new UsageError(
        `the scope is not valid: ${result.error.issues.map((issue) => `${issue.path.join('.') || '(scope)'}: ${issue.message}`).join('; ')}`,
      );
    }
    scope = result.data;
    if (command.configPath !== undefined) {
      const value = await readJsonFile(command.configPath, 'the config file');
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new UsageError('the config file must hold a JSON object');
      config = value as Record<string, unknown>;
    }
    if (command.credentialPath !== undefined) {
      try {
        credential = await loadCredential(command.credentialPath);
      } catch (error) {
        throw error instanceof CredentialFileError ? new UsageError(error.message) : error;
      }
    }
    const parsedTarget = definition.parseTarget(command.target);
    if (!parsedTarget.ok) throw new UsageError(`${JSON.stringify(redactTarget(command.target))} is not a target: ${parsedTarget.message}`);
    target = parsedTarget.target;
  } catch (error) {
    log.error('usage error', { message: errorMessage(error), usage: usageOf(def) });
    return EXIT.usage;
  }

  const report = new ReportBuilder({ scanner, target, catalogue, now: io.now });
  const deadline = new Deadline(command.timeoutSeconds * 1000);
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
  });
  try {
    await deadline.within(scan, 'the scan');
  } catch (error) {
    if (error instanceof CouldNotStart || error instanceof TargetRefused) {
      log.error('could not start', { message: error.message });
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
  const finished: EngineReport = report.finish();
  log.info('scan finished', { status: finished.status, findings: finished.findings.length, errors: finished.errors.length });
  io.stdout(command.format === 'text' ? renderText(finished) : `${JSON.stringify(finished)}\n`);
  return EXIT.ok;
}

/**
 * The executable's body (`src/bin/<engine>.ts`): runs the CLI on this process and exits once
 * stdout is flushed, so a probe abandoned at the deadline cannot keep the process alive.
 */
export async function engineMain<Scope>(definition: EngineDefinition<Scope>): Promise<void> {
  removeTempFoldersOnExit();
  const io = processIo();
  const code = await runEngineCli(definition, process.argv.slice(2), io).catch((error: unknown) => {
    makeProgress(io).error('internal error', { message: error instanceof Error ? error.message : String(error) });
    return 1;
  });
  process.stdout.write('', () => process.exit(code));
}
