import type { EngineDefinition, ScanContext } from '../../engine-kit/src/cli.ts';
import { CouldNotStart } from '../../engine-kit/src/cli.ts';
import { resolveTarget } from '../../../lib/target-policy.ts';
import { CATALOGUE } from './catalogue.ts';
import { DEFAULT_BOUNDS, type ScanBounds } from './bounds.ts';
import { scanRepository } from './scan.ts';
import { resolveScope, SecretScanScope } from './scope.ts';
import { parseRepositoryTarget } from '../../../lib/git/repository-url.ts';
import { SCANNER_NAME, SCANNER_VERSION } from './version.ts';

/** A positive whole number from the environment, or the default; anything else is refused, not guessed. */
function setting(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, unit: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) === 0) throw new CouldNotStart(`${name} must be a positive whole number`);
  return Number(raw) * unit;
}

/** The bounds of docs/secretscan.md, each overridable: SECRETSCAN_MAX_PACK_MB, _MAX_BLOB_KB, _MAX_FILES. */
export function boundsFromEnv(env: Readonly<Record<string, string | undefined>>): ScanBounds {
  return {
    maxPackBytes: setting(env, 'SECRETSCAN_MAX_PACK_MB', DEFAULT_BOUNDS.maxPackBytes, 1024 * 1024),
    maxBlobBytes: setting(env, 'SECRETSCAN_MAX_BLOB_KB', DEFAULT_BOUNDS.maxBlobBytes, 1024),
    maxFiles: setting(env, 'SECRETSCAN_MAX_FILES', DEFAULT_BOUNDS.maxFiles, 1),
    idleTimeoutMs: DEFAULT_BOUNDS.idleTimeoutMs,
  };
}

/**
 * The scan stops itself this long before the frame's deadline, so it still reports what it read
 * and removes its clone: the frame's own deadline exits the process, and a clone left in Lambda's
 * /tmp would outlive the invocation.
 */
function marginMs(remainingMs: number): number {
  return Math.min(5_000, remainingMs / 10);
}

async function scan(context: ScanContext<SecretScanScope>): Promise<void> {
  const target = new URL(context.target);
  if (target.protocol === 'http:' && !context.policy.allowLoopback) {
    throw new CouldNotStart('http:// repositories are refused (https only)');
  }
  const bounds = boundsFromEnv(context.env);
  // Resolved and vetted once, before anything else: a refused target is exit 3, not a report.
  const host = target.hostname;
  const first = await resolveTarget(host, context.policy);
  const resolve = (name: string) => (name === host.replace(/^\[|\]$/g, '') ? Promise.resolve(first) : resolveTarget(name, context.policy));
  const budget = context.deadline.child(context.deadline.remainingMs() - marginMs(context.deadline.remainingMs()));
  await scanRepository(target, resolveScope(context.scope), context.report, {
    resolve,
    env: context.env,
    progress: context.progress,
    signal: budget.signal,
    allowHttp: context.policy.allowLoopback,
    bounds,
    tmpRoot: context.env.SECRETSCAN_TMPDIR || undefined,
    credential: context.credential,
  });
}

/** secretscan for the kit's CLI frame (docs/engine-contract.md). */
export const secretscan: EngineDefinition<SecretScanScope> = {
  name: SCANNER_NAME,
  version: SCANNER_VERSION,
  envPrefix: 'SECRETSCAN',
  targetHelp: 'a repository URL, https://host/owner/repo[.git] (http:// only with SECRETSCAN_ALLOW_LOOPBACK=1)',
  catalogue: () => CATALOGUE,
  scopeSchema: () => SecretScanScope,
  parseTarget: parseRepositoryTarget,
  scan,
  defaultTimeoutSeconds: 840,
};
