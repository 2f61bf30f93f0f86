import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineReportSchema, type EngineReport } from '../../../lib/report.ts';
import type { RunnerFinding } from '../../domain/finding.ts';
import type { RunnerInput, RunnerResult, ScanRunner } from '../../ports/scan-runner.ts';
import { engineEnv, engineTimeoutSeconds, runEngineProcess, startedLine } from './engine-process.ts';

/** What differs between engines that follow the kit's contract (docs/engine-contract.md). */
export interface EngineMapping {
  /** The executable's name: tlsscan, secretscan, netscan. */
  engine: string;
  /** Its settings' environment prefix: TLSSCAN. */
  envPrefix: string;
  /** The job's scope (already validated by the API) → the engine's --scope-json file. */
  scopeFile: (input: RunnerInput) => Record<string, unknown>;
  /** Operator keys this engine may see, from the operator secret (names start with the prefix). */
  keyFilter?: (name: string) => boolean;
  /** The manifest's `outputs`: the report's documents passed on; others are dropped. */
  outputs?: Readonly<Record<string, { purpose: string; contentType: string }>>;
}

export interface EngineRunnerOptions {
  mapping: EngineMapping;
  /** The built CLI: /opt/bin/<engine> in the layer, layers/<engine>/dist/bin/<engine> locally. */
  bin: string;
  /** The service's environment; only `<PREFIX>_*` reach the engine. */
  env?: NodeJS.ProcessEnv;
  /** The Node binary that runs the CLI; the function's own by default. */
  node?: string;
  /**
   * `ALLOW_LOOPBACK_TARGETS=true npm start` (local only; never in AWS): the engine may connect to
   * loopback targets (DESIGN §11).
   */
  allowLoopback?: boolean;
  /** Private networks are in scope for this deployment. */
  allowPrivate?: boolean;
  /** Operator keys, read from the operator secret in AWS; passed in the engine's environment only. */
  operatorKeys?: () => Promise<Readonly<Record<string, string>>>;
}

/** An engine report as the runner's result: findings with their keys, checks, and check errors. */
export function resultOfEngineReport(
  report: EngineReport,
  declared: Readonly<Record<string, { purpose: string; contentType: string }>> = {},
): RunnerResult {
  const findings: RunnerFinding[] = report.findings.map((finding) => ({
    rule_id: finding.rule_id,
    severity: finding.severity,
    title: finding.title,
    description: finding.detail,
    evidence: finding.evidence,
    remediation: finding.remediation,
    evidence_key: finding.fingerprint_key,
    subject: finding.subject ?? finding.fingerprint_key,
    ...(finding.locations === undefined ? {} : { locations: finding.locations }),
  }));
  const outputs = Object.entries(report.outputs ?? {}).flatMap(([name, document]) => {
    const declaration = Object.hasOwn(declared, name) ? declared[name] : undefined;
    return declaration ? [{ name, purpose: declaration.purpose, contentType: declaration.contentType, document }] : [];
  });
  return {
    findings,
    checks: report.checks,
    errors: report.errors.map((error) => `${error.check}: ${error.message}`),
    ...(outputs.length > 0 ? { outputs } : {}),
  };
}

/**
 * The one child-process runner for every engine that follows the kit's contract: writes the scope
 * to a file in a folder of its own, runs `<engine> scan --scope-json FILE --timeout N --format json -- target`
 * with `<PREFIX>_TMPDIR` inside that folder, parses stdout with the common report schema, and
 * removes the folder whatever happened. An engine that cannot start
 * (exit 3) or prints no parsable report fails the target; errored checks make the job partial.
 */
export function makeEngineRunner({
  mapping,
  bin,
  env = process.env,
  node = process.execPath,
  allowLoopback = false,
  allowPrivate = false,
  operatorKeys,
}: EngineRunnerOptions): ScanRunner {
  const { engine, envPrefix } = mapping;
  return {
    name: engine,
    async run(input: RunnerInput): Promise<RunnerResult> {
      const { target, signal, timeoutMs, logger } = input;
      const dir = await mkdtemp(join(tmpdir(), `${engine}-run-`));
      try {
        const scopePath = join(dir, 'scope.json');
        await writeFile(scopePath, JSON.stringify(mapping.scopeFile(input)), { mode: 0o600 });
        const args = ['scan', `--scope-json=${scopePath}`, `--timeout=${engineTimeoutSeconds(timeoutMs)}`, '--format=json'];
        if (input.credential !== undefined) {
          // The run's folder is mkdtemp's (0700) and the file 0600: readable by this user alone, and
          // removed with the folder below, whatever the engine did (DESIGN §16).
          const credentialPath = join(dir, 'credential.json');
          await writeFile(credentialPath, JSON.stringify(input.credential), { mode: 0o600, flag: 'wx' });
          args.push(`--credential-file=${credentialPath}`);
        }
        if (input.context !== undefined) {
          const configPath = join(dir, 'config.json');
          await writeFile(configPath, JSON.stringify(input.context), { mode: 0o600 });
          args.push(`--config=${configPath}`);
        }
        args.push('--', target);
        // What was asked, in the scope's own words: never the command line, whose file names are this
        // server's temporary folder (issue 41 item 4: no server paths in a scan's log).
        logger.info(`${engine} started`, startedLine(input));
        const keys = operatorKeys ? await operatorKeys() : {};
        const passedKeys = Object.fromEntries(
          Object.entries(keys).filter(([name]) => name.startsWith(`${envPrefix}_`) && (mapping.keyFilter?.(name) ?? true)),
        );
        // The engine's temporary files go to a folder of this run's, removed below however the run ends
        // (a timeout's SIGTERM included): nothing fetched outlives the job in a warm Lambda's shared /tmp.
        const scratch = join(dir, 'tmp');
        await mkdir(scratch, { mode: 0o700 });
        const switches = {
          [`${envPrefix}_TMPDIR`]: scratch,
          ...(allowLoopback ? { [`${envPrefix}_ALLOW_LOOPBACK`]: '1' } : {}),
          ...(allowPrivate ? { [`${envPrefix}_ALLOW_PRIVATE`]: '1' } : {}),
        };
        const stdout = await runEngineProcess({
          engine,
          node,
          bin,
          args,
          env: engineEnv(envPrefix, env, { ...passedKeys, ...switches }),
          signal,
          timeoutMs,
          target,
        }).catch((error: unknown) => {
          // An engine's last words may name its scope file: the scan's error says "the run's folder".
          if (error instanceof Error) error.message = error.message.replaceAll(dir, "the run's folder");
          throw error;
        });
        let report: EngineReport;
        try {
          report = engineReportSchema().parse(JSON.parse(stdout));
        } catch {
          throw new Error(`${engine} printed a report that does not parse`);
        }
        logger.info(`${engine} finished`, { status: report.status, findings: report.findings.length, errors: report.errors.length });
        return resultOfEngineReport(report, mapping.outputs);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
