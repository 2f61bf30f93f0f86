/**
 * sbomscan on the kit's CLI frame (DESIGN §18): read the branch head's lockfiles, build the
 * CycloneDX document, look the packages up in OSV, report the §18 rules. The SBOM goes out as the
 * report's `sbom` output, which the service stores as an artifact of purpose `sbom`.
 */
import { matchesGlob } from 'node:path';
import type { EngineDefinition, ScanContext } from '../../engine-kit/src/cli.ts';
import { CouldNotStart } from '../../engine-kit/src/cli.ts';
import { resolveTarget } from '../../../lib/target-policy.ts';
import { CredentialRefused, repositoryCredential } from '../../../lib/git/repository-credential.ts';
import { parseRepositoryTarget } from '../../../lib/git/repository-url.ts';
import { CATALOGUE } from './catalogue.ts';
import { UnparseableLockfile } from './component.ts';
import { buildBom, uniqueByPurl } from './cyclonedx.ts';
import { DEV_GLOBS, ignoresFromOsvScannerToml, recordFindings, type IgnoreEntry } from './findings.ts';
import { isWanted, OSV_SCANNER_TOML, takeInventory } from './inventory.ts';
import { lookUpAdvisories, OsvFailure } from './advisories.ts';
import { readHead } from './repository.ts';
import { SbomScope } from './scope.ts';
import { SCANNER_NAME, SCANNER_VERSION } from './version.ts';

const DEFAULT_OSV_URL = 'https://api.osv.dev';
const DEFAULT_MAX_PACK_MB = 512;

function maxPackBytes(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.SBOMSCAN_MAX_PACK_MB;
  if (raw === undefined || raw === '') return DEFAULT_MAX_PACK_MB * 1024 * 1024;
  if (!/^\d+$/.test(raw) || Number(raw) === 0) throw new CouldNotStart('SBOMSCAN_MAX_PACK_MB must be a positive whole number');
  return Number(raw) * 1024 * 1024;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function scan(context: ScanContext<SbomScope>): Promise<void> {
  const { scope, report, progress } = context;
  const target = new URL(context.target);
  if (target.protocol === 'http:' && !context.policy.allowLoopback)
    throw new CouldNotStart('http:// repositories are refused (https only)');
  const host = target.hostname;
  const first = await resolveTarget(host, context.policy);
  const resolve = (name: string) => (name === host.replace(/^\[|\]$/g, '') ? Promise.resolve(first) : resolveTarget(name, context.policy));
  const ignoredGlobs = scope.paths_ignore ?? [];
  // A private repository: the tenant's git_token (DESIGN §16), sent to this origin only and only when its allowed_hosts admit the host.
  let credential;
  try {
    credential =
      scope.credential === undefined ? undefined : repositoryCredential(scope.credential, context.credential, host.replace(/^\[|\]$/g, ''));
  } catch (error) {
    if (error instanceof CredentialRefused) throw new CouldNotStart(error.message);
    throw error;
  }
  const head = await readHead({
    authorization: credential?.authorization,
    url: target.toString(),
    branch: scope.branch,
    resolve,
    allowHttp: context.policy.allowLoopback,
    signal: context.deadline.signal,
    maxPackBytes: maxPackBytes(context.env),
    idleTimeoutMs: 30_000,
    tmpRoot: context.env.SBOMSCAN_TMPDIR || undefined,
    wanted: isWanted,
    ignored: (path) => ignoredGlobs.some((glob) => matchesGlob(path, glob) || matchesGlob(path.replace(/\/$/, ''), glob)),
  });
  progress('head read', { branch: head.branch, commit: head.commit, files: head.files.size });

  const inventory = takeInventory(head.files);
  // A lockfile that was not read is an error naming it, never a clean verdict for its packages.
  for (const skipped of head.skipped) inventory.failures.push(new UnparseableLockfile(skipped.path, `not read: ${skipped.reason}`));
  const all = uniqueByPurl(inventory.components);
  const components = scope.include_dev ? all : all.filter((component) => component.scope !== 'development');
  progress('inventory', {
    lockfiles: inventory.read.length,
    packages: components.length,
    development_left_out: all.length - components.length,
  });

  const ignores: IgnoreEntry[] = (scope.ignore ?? []).map((entry) => ({ ...entry, from: 'scope' as const }));
  const toml = head.files.get(OSV_SCANNER_TOML);
  if (toml !== undefined) {
    try {
      ignores.push(...ignoresFromOsvScannerToml(toml));
    } catch (error) {
      inventory.notes.push(`${OSV_SCANNER_TOML} cannot be read: ${message(error)}`);
    }
  }

  let advisories;
  let advisoryError: string | undefined;
  try {
    advisories =
      components.length === 0
        ? []
        : await lookUpAdvisories(components, { baseUrl: context.env.SBOMSCAN_OSV_URL || DEFAULT_OSV_URL, signal: context.deadline.signal });
  } catch (error) {
    if (!(error instanceof OsvFailure) && !context.deadline.signal.aborted) throw error;
    advisoryError = context.deadline.signal.aborted ? "the OSV lookup did not finish before the scan's deadline" : message(error);
  }
  // What this scan examined: the branch's head, less paths_ignore, and less development dependencies without include_dev (DESIGN §15).
  report.covered({
    kind: 'repository',
    ref: head.branch,
    history: { read: false, commits: 1, complete: false },
    paths_ignored: [...ignoredGlobs, ...(scope.include_dev ? [] : DEV_GLOBS)],
  });
  recordFindings(report, {
    ref: head.branch,
    inventory,
    components,
    scope,
    advisories,
    advisoryError,
    ignores,
    today: context.now().toISOString().slice(0, 10),
  });
  report.output(
    'sbom',
    buildBom({ repository: context.target, branch: head.branch, commit: head.commit, timestamp: context.now().toISOString() }, components),
  );
  if (inventory.notes.length > 0) progress('notes', { notes: inventory.notes.slice(0, 50) });
}

export const sbomscan: EngineDefinition<SbomScope> = {
  name: SCANNER_NAME,
  version: SCANNER_VERSION,
  envPrefix: 'SBOMSCAN',
  targetHelp: 'a repository URL, https://host/owner/repo[.git] (http:// only with SBOMSCAN_ALLOW_LOOPBACK=1)',
  catalogue: () => CATALOGUE,
  scopeSchema: () => SbomScope,
  parseTarget: parseRepositoryTarget,
  scan,
  defaultTimeoutSeconds: 300,
};
