import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportFingerprint, reportSchema, type Report } from '../../../layers/mailscan/src/index.ts';
import type { RunnerFinding } from '../../domain/finding.ts';
import mailscan from '../../../layers/mailscan/manifest.ts';
import { EmailSecurityScope, withoutLegacyKeys } from '../../domain/scope.ts';
import type { RunnerInput, RunnerResult, ScanRunner } from '../../ports/scan-runner.ts';
import { engineEnv, engineTimeoutSeconds, runEngineProcess, startedLine } from './engine-process.ts';
import { snapshotNodeOptions } from './mailscan-snapshot.ts';

export interface MailscanRunnerOptions {
  /** The built CLI: /opt/bin/mailscan in the layer, layers/mailscan/dist/bin/mailscan locally. */
  bin: string;
  /** The service's environment; only MAILSCAN_* (and what a process needs to start) reach the CLI. */
  env?: NodeJS.ProcessEnv;
  /** The Node binary that runs the CLI; the function's own by default. */
  node?: string;
  /**
   * Operator keys (`MAILSCAN_*_KEY`) for the CLI's environment, read from the operator keys secret
   * in AWS. They go to the child process only: never into this process's environment, the
   * command line or a log line.
   */
  operatorKeys?: () => Promise<Readonly<Record<string, string>>>;
  /**
   * Where a start-up snapshot made with `node` from the layer's script is kept, when the layer has
   * no blob `node` accepts (mailscan-snapshot.ts): MAILSCAN_SNAPSHOT_CACHE, else the OS temporary
   * folder (/tmp in Lambda); `npm start` puts it under DATA_DIR.
   */
  snapshotCache?: string;
}

/**
 * Scope → CLI flags (DESIGN §4, §6). Unknown keys cannot reach here: the API refused them. Every
 * value is attached to its flag (`--rua=<path>`) and the target follows `--`, so no value, however
 * it starts, can ever be read as an option.
 */
export function mailscanArgs(
  target: string,
  scope: Record<string, unknown>,
  timeoutMs: number,
  artifactPaths?: RunnerInput['artifactPaths'],
): string[] {
  const parsed = EmailSecurityScope.parse(withoutLegacyKeys(scope));
  const args = ['scan', '--format=json', `--timeout=${engineTimeoutSeconds(timeoutMs)}`];
  if (parsed.reputation === false) args.push('--no-reputation');
  if (parsed.discover) args.push('--discover');
  if (parsed.leak) args.push('--leak');
  // The scope holds artifact ids; the CLI reads the local copies the artifact-fetching runner made.
  if ((parsed.rua?.length ?? 0) > 0 || parsed.header) {
    if (
      !artifactPaths ||
      artifactPaths.rua.length !== (parsed.rua?.length ?? 0) ||
      (parsed.header !== undefined) !== (artifactPaths.header !== null)
    ) {
      throw new Error('the scope names artifacts that were not fetched for this run');
    }
  }
  for (const path of artifactPaths?.rua ?? []) args.push(`--rua=${path}`);
  if (artifactPaths?.header) args.push(`--eml=${artifactPaths.header}`);
  for (const selector of parsed.dkim_selectors ?? []) args.push(`--dkim-selector=${selector}`);
  for (const technique of parsed.techniques ?? []) args.push(`--technique=${technique}`);
  args.push('--', target);
  return args;
}

/** Operator keys and scanner settings travel in the environment only, never on the command line. */
export function mailscanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return engineEnv('MAILSCAN', env);
}

/** A mailscan report as the engine's runner result: findings, check errors, score and grade. */
export function resultOfReport(report: Report): RunnerResult {
  const findings: RunnerFinding[] = report.findings.map((finding) => ({
    ref: reportFingerprint(report.domain, finding),
    rule_id: finding.rule_id,
    severity: finding.severity,
    title: finding.title,
    description: finding.detail,
    evidence: finding.evidence,
    remediation: finding.remediation,
    ...(finding.evidence_key === undefined ? {} : { evidence_key: finding.evidence_key }),
    ...(finding.subject === undefined ? {} : { subject: finding.subject }),
    ...(finding.locations === undefined ? {} : { locations: finding.locations }),
  }));
  // The metrics mailscan's manifest names (score, grade), from the posture surface, where it has them.
  const posture: Readonly<Record<string, unknown>> = report.surfaces.posture;
  const summary = Object.fromEntries(
    mailscan.summaryMetrics.flatMap((metric) =>
      posture[metric] === null || posture[metric] === undefined ? [] : [[metric, posture[metric]]],
    ),
  );
  return {
    findings,
    checks: report.checks,
    errors: report.errors.map((error) => `${error.surface}/${error.check}: ${error.message}`),
    summary,
  };
}

/**
 * The email_security runner: runs the mailscan CLI with execFile (no shell), maps the scope to
 * flags, bounds it by the time the engine grants, and parses stdout with the report's zod schema.
 * Exit 0 with check errors → findings plus errors (the job is partial); exit 2 or 3, or a report
 * that does not parse → the runner fails.
 */
export function makeMailscanRunner({
  bin,
  env = process.env,
  node = process.execPath,
  operatorKeys,
  snapshotCache = env.MAILSCAN_SNAPSHOT_CACHE || join(tmpdir(), 'mailscan-snapshot'),
}: MailscanRunnerOptions): ScanRunner {
  return {
    name: 'mailscan',
    async run({ target, scope, signal, timeoutMs, logger, artifactPaths }: RunnerInput): Promise<RunnerResult> {
      const args = mailscanArgs(target, scope, timeoutMs, artifactPaths);
      // The options in the scope's words, not the command line (its upload paths are this server's temporary folder).
      logger.info('mailscan started', {
        ...startedLine({ target, scope, timeoutMs }),
        uploads: (artifactPaths?.rua.length ?? 0) + (artifactPaths?.header ? 1 : 0),
      });
      const childEnv = { ...mailscanEnv(env), ...(operatorKeys ? await operatorKeys() : {}) };
      // From the start-up snapshot when this node accepts it, else the plain bundle (same report).
      const nodeOptions = await snapshotNodeOptions(node, bin, { cacheDir: snapshotCache, logger });
      const stdout = await runEngineProcess({ engine: 'mailscan', node, bin, nodeOptions, args, env: childEnv, signal, timeoutMs, target });
      let report: Report;
      try {
        report = reportSchema.parse(JSON.parse(stdout));
      } catch {
        throw new Error('mailscan printed a report that does not parse');
      }
      // Not a domain without records but no domain at all (a typo, an expired registration): the job fails.
      if (report.domain_exists === false) throw new Error(`${report.domain} does not exist (NXDOMAIN)`);
      logger.info('mailscan finished', {
        findings: report.findings.length,
        errors: report.errors.length,
        score: report.surfaces.posture.score,
      });
      return resultOfReport(report);
    },
  };
}
