import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineReportSchema, type EngineReport } from '../../../lib/report.ts';
import type { RunnerFinding } from '../../domain/finding.ts';
import type { ArtifactStore } from '../../ports/artifact-store.ts';
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
  /** The manifest's `artifactFields`: scope fields holding artifact ids, fetched and handed over as local paths. */
  artifactFields?: Readonly<Record<string, { purpose: string; many: boolean }>>;
  /** The manifest's `summaryMetrics`: the report's `summary` figures kept on the job. */
  summaryMetrics?: readonly string[];
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
  /** Where the scope's artifacts are fetched from, under the job's tenant (the manifest's `artifactFields`). */
  artifacts?: ArtifactStore;
  /**
   * Options for `node` before the executable, asked at each run: an engine's start-up snapshot
   * (startup-snapshot.ts) when this node accepts it, else none.
   */
  nodeOptions?: (node: string, bin: string, logger: RunnerInput['logger']) => Promise<string[]>;
}

/** An engine report as the runner's result: findings with their keys, checks, check errors and the manifest's summary metrics. */
export function resultOfEngineReport(
  report: EngineReport,
  declared: Readonly<Record<string, { purpose: string; contentType: string }>> = {},
  summaryMetrics: readonly string[] = [],
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
    ...(finding.ref === undefined ? {} : { ref: finding.ref }),
  }));
  const outputs = Object.entries(report.outputs ?? {}).flatMap(([name, document]) => {
    const declaration = Object.hasOwn(declared, name) ? declared[name] : undefined;
    return declaration ? [{ name, purpose: declaration.purpose, contentType: declaration.contentType, document }] : [];
  });
  const summary = Object.fromEntries(
    summaryMetrics.flatMap((metric) => (report.summary && Object.hasOwn(report.summary, metric) ? [[metric, report.summary[metric]]] : [])),
  ) as RunnerResult['summary'];
  return {
    findings,
    checks: report.checks,
    errors: report.errors.map((error) => ({ check: error.check, message: error.message })),
    ...(summaryMetrics.length > 0 ? { summary } : {}),
    ...(outputs.length > 0 ? { outputs } : {}),
  };
}

/**
 * The scope's artifacts (the manifest's `artifactFields`, ids of the job's tenant) fetched into
 * `folder`, and the scope with each id replaced by its local copy's path. The store is asked with
 * the job's tenant, so a scope cannot reach another tenant's object whatever id it holds.
 */
async function withLocalArtifacts(
  scope: Record<string, unknown>,
  fields: Readonly<Record<string, { purpose: string; many: boolean }>>,
  store: ArtifactStore | undefined,
  tenant: string,
  folder: string,
): Promise<Record<string, unknown>> {
  const named = Object.keys(fields).filter((field) => scope[field] !== undefined);
  if (named.length === 0) return scope;
  if (!store) throw new Error(`the scope names artifacts (${named.join(', ')}) and this deployment has no artifact store`);
  await mkdir(folder, { mode: 0o700 });
  const local = { ...scope };
  for (const field of named) {
    const value = scope[field];
    const ids = Array.isArray(value) ? value : [value];
    const paths = await Promise.all(
      ids.map(async (id, index) => {
        if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(id))
          throw new Error(`scope.${field} holds something that is not an artifact id`);
        const path = join(folder, `${field}-${index}-${id}`);
        try {
          await store.fetchTo(tenant, id, path);
        } catch (error) {
          throw new Error(`artifact ${id} could not be fetched: ${(error as Error).message}`);
        }
        return path;
      }),
    );
    local[field] = Array.isArray(value) ? paths : paths[0];
  }
  return local;
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
  artifacts,
  nodeOptions,
}: EngineRunnerOptions): ScanRunner {
  const { engine, envPrefix } = mapping;
  return {
    name: engine,
    async run(input: RunnerInput): Promise<RunnerResult> {
      const { target, signal, timeoutMs, logger } = input;
      const dir = await mkdtemp(join(tmpdir(), `${engine}-run-`));
      try {
        const scopePath = join(dir, 'scope.json');
        const scope = await withLocalArtifacts(
          mapping.scopeFile(input),
          mapping.artifactFields ?? {},
          artifacts,
          input.tenant,
          join(dir, 'artifacts'),
        );
        await writeFile(scopePath, JSON.stringify(scope), { mode: 0o600 });
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
          nodeOptions: nodeOptions ? await nodeOptions(node, bin, logger) : [],
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
        // The target itself could not be scanned (mailscan: a domain that does not exist): the target fails, in the engine's words.
        if (report.failure !== undefined) throw new Error(report.failure);
        logger.info(`${engine} finished`, {
          status: report.status,
          findings: report.findings.length,
          errors: report.errors.length,
          ...report.summary,
        });
        return resultOfEngineReport(report, mapping.outputs, mapping.summaryMetrics);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
