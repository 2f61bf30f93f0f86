import { BlobTriage } from './blob-triage.ts';
import { ownedTempFolder, releaseTempFolder } from '../../engine-kit/src/temp-folders.ts';
import { CATALOGUE, RULE_IDS } from './catalogue.ts';
import { cloneRepository } from '../../../lib/git/clone.ts';
import type { LoadedCredential } from '../../../lib/credential.ts';
import { redact, repositoryCredential, type RepositoryCredential } from '../../../lib/git/repository-credential.ts';
import { GitHttpClient, type ResolveVetted } from '../../../lib/git/git-http.ts';
import { GITLINK_MODE, parseCommit, parseTree, TREE_MODE } from '../../../lib/git/git-objects.ts';
import { MAX_SIGHTINGS_PER_BLOB, walkHistory } from './history.ts';
import { IGNORE_FILE, parseIgnoreFile, type IgnoreList } from './ignore-file.ts';
import { scanBlobs, type BlobScanResult, type FoundSecret } from './scan-blobs.ts';
import type { ResolvedScope } from './scope.ts';
import type { ScanBounds } from './bounds.ts';
import { SCANNER_NAME, SCANNER_VERSION } from './version.ts';
import type { Coverage } from '../../../lib/report.ts';

/** Where the scan's results go: the kit's ReportBuilder. */
export interface ReportSink {
  pass(ruleId: string, detail?: string): unknown;
  fail(
    ruleId: string,
    finding: { detail: string; evidence: Record<string, unknown>; fingerprint_key: string; subject: string; locations: string[] },
  ): unknown;
  covered(coverage: Coverage): unknown;
  error(ruleIds: string | readonly string[], message: string): unknown;
}

export interface ScanContext {
  resolve: ResolveVetted;
  env: Readonly<Record<string, string | undefined>>;
  progress: (event: string, fields?: Record<string, unknown>) => void;
  /** The scan's deadline. */
  signal: AbortSignal;
  /** http: targets (the loopback setting). */
  allowHttp: boolean;
  bounds: ScanBounds;
  tmpRoot?: string;
  /** The tenant credential of --credential-file (DESIGN §16), for scope.credential. */
  credential?: LoadedCredential;
}

/** The pack reader's delta-base cache (pack-store.ts). */
const DELTA_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * The commits' and trees' inflated pack data the pack reader keeps for the history walk (4.9 MB on
 * the bench's 10,000 commits; past the budget, the rest is read back from the file as before).
 */
const KEPT_COMMITS_AND_TREES_BYTES = 16 * 1024 * 1024;
/** The largest object resolved in memory; a larger whole blob is hashed as a stream and skipped as over the blob bound. */
const MAX_OBJECT_BYTES = 64 * 1024 * 1024;

/** How many locations a finding lists; the rest are counted. */
const MAX_LOCATIONS = 50;

function shortCommit(commit: string): string {
  return commit.slice(0, 12);
}

function evidenceOf(secret: FoundSecret): Record<string, unknown> {
  const locations = [...secret.locations].sort(
    (a, b) =>
      Number(b.in_head) - Number(a.in_head) ||
      a.author_date.localeCompare(b.author_date) ||
      a.path.localeCompare(b.path) ||
      a.line - b.line,
  );
  const first = locations[0];
  return {
    path: first.path,
    line: first.line,
    commit: first.commit,
    author_date: first.author_date,
    in_head: locations.some((location) => location.in_head),
    kind: secret.kind,
    masked: secret.digest.masked,
    length: secret.digest.length,
    sha256: secret.digest.sha256,
    locations: locations.slice(0, MAX_LOCATIONS),
    locations_total: locations.length,
  };
}

/**
 * Where a secret was seen, in the coverage's location forms: `head` for the branch's tip, and
 * `history` for every commit it is in when the history was read. A scan of the tip alone then
 * never resolves a secret still in a commit it did not read.
 */
function locationsOf(secret: FoundSecret, branch: string, historyRead: boolean): string[] {
  const locations = new Set<string>();
  for (const location of secret.locations) {
    if (location.in_head) locations.add(`git:${branch}:head:${location.path}`);
    if (historyRead) locations.add(`git:${branch}:history:${location.path}`);
  }
  return [...locations].slice(0, MAX_LOCATIONS);
}

function detailOf(secret: FoundSecret, title: string, branch: string): string {
  const evidence = evidenceOf(secret);
  const where = `${String(evidence.path)} line ${String(evidence.line)} (commit ${shortCommit(String(evidence.commit))})`;
  const more = secret.locations.length > 1 ? ` and ${secret.locations.length - 1} more place${secret.locations.length > 2 ? 's' : ''}` : '';
  const state = evidence.in_head ? `still in ${branch}` : `only in history: removed from ${branch}, still in its commits`;
  return `${title} ${secret.digest.masked} (${secret.digest.length} characters) in ${where}${more}; ${state}.`;
}

/** The tip's `.secretscanignore`, when it has one (a file at the root). */
function readIgnoreList(repo: Awaited<ReturnType<typeof cloneRepository>>): IgnoreList | null {
  const { store } = repo;
  const root = parseCommit(repo.tip, store.read(repo.tip, 'commit')).tree;
  const entry = parseTree(root, store.read(root, 'tree')).find((candidate) => candidate.name === IGNORE_FILE);
  if (!entry || entry.mode === TREE_MODE || entry.mode === GITLINK_MODE) return null;
  return parseIgnoreFile(new TextDecoder().decode(store.read(entry.oid, 'blob')));
}

function summary(result: BlobScanResult, commits: number, truncated: boolean, submodules: number, ignored: number): string {
  const { stats } = result;
  const parts = [
    `${stats.blobsScanned} files (${stats.bytesScanned} bytes) from ${commits} commit${commits === 1 ? '' : 's'}${truncated ? ' (history cut at max_commits)' : ''}`,
  ];
  if (stats.skippedTooLarge > 0) parts.push(`${stats.skippedTooLarge} over the blob size bound skipped`);
  if (stats.skippedBinary > 0) parts.push(`${stats.skippedBinary} binary skipped`);
  if (stats.skippedIgnoredPath > 0) parts.push(`${stats.skippedIgnoredPath} under paths_ignore`);
  if (submodules > 0) parts.push(`${submodules} submodule${submodules === 1 ? '' : 's'} not followed`);
  if (ignored > 0) parts.push(`${ignored} secret${ignored === 1 ? '' : 's'} allowed by ${IGNORE_FILE}`);
  return parts.join('; ');
}

/**
 * One scan of one repository into `report`: clone (bounded, through the target policy), walk the
 * history, read each blob once, report each secret once with all its locations. Every failure is
 * an error on the rules it stopped, with a message that holds no credential.
 */
export async function scanRepository(target: URL, scope: ResolvedScope, report: ReportSink, context: ScanContext): Promise<void> {
  let credential: RepositoryCredential | undefined;
  const secrets = (): string[] => credential?.secrets ?? [];
  let phase = 'clone';
  let scratch: string | undefined;
  try {
    if (scope.credential !== undefined) {
      credential = repositoryCredential(scope.credential, context.credential, target.hostname.replace(/^\[|\]$/g, ''));
    }
    const http = new GitHttpClient({
      resolve: context.resolve,
      authorization: credential?.authorization,
      origin: target.origin,
      maxResponseBytes: context.bounds.maxPackBytes,
      idleTimeoutMs: context.bounds.idleTimeoutMs,
      allowHttp: context.allowHttp,
      signal: context.signal,
      agent: `${SCANNER_NAME}/${SCANNER_VERSION}`,
    });
    // The clone goes to a folder this run owns: removed when the scan ends, and by the frame if the process is stopped.
    scratch = await ownedTempFolder('secretscan-', context.tmpRoot);
    const depth = scope.history ? scope.maxCommits + 1 : 1;
    const triage = new BlobTriage(context.bounds.maxBlobBytes);
    const started = Date.now();
    const repo = await cloneRepository({
      url: target.toString(),
      branch: scope.branch,
      depth,
      http,
      signal: context.signal,
      tmpRoot: scratch,
      authorized: credential !== undefined,
      cacheBytes: DELTA_CACHE_BYTES,
      keptBytes: KEPT_COMMITS_AND_TREES_BYTES,
      maxObjectBytes: Math.max(MAX_OBJECT_BYTES, context.bounds.maxBlobBytes),
      onBlob: triage.inspect,
    });
    try {
      context.progress('clone finished', {
        branch: repo.branch,
        bytes: http.bytesReceived,
        objects: repo.store.objects,
        ms: Date.now() - started,
      });
      phase = 'history walk';
      const walk = await walkHistory({
        store: repo.store,
        tip: repo.tip,
        shallow: repo.shallow,
        maxCommits: scope.history ? scope.maxCommits : 1,
        maxBlobs: context.bounds.maxFiles,
        signal: context.signal,
      });
      context.progress('history walked', { commits: walk.commits, files: walk.blobs.size, truncated: walk.truncated });
      phase = 'file scan';
      const ignore = readIgnoreList(repo);
      const result = await scanBlobs(repo, walk, {
        maxBlobBytes: context.bounds.maxBlobBytes,
        pathsIgnore: scope.pathsIgnore,
        signal: context.signal,
        triage,
      });
      report.covered({
        kind: 'repository',
        ref: repo.branch,
        history: { read: scope.history, commits: walk.commits, complete: scope.history && !walk.truncated },
        paths_ignored: scope.pathsIgnore,
      });
      const kept = result.secrets.filter((secret) => !ignore?.fingerprints.has(secret.digest.sha256));
      for (const secret of kept) {
        const rule = CATALOGUE.find((entry) => entry.rule_id === secret.ruleId)!;
        const evidence = evidenceOf(secret);
        report.fail(secret.ruleId, {
          detail: detailOf(secret, rule.title, repo.branch),
          evidence,
          fingerprint_key: secret.digest.sha256,
          subject: `${String(evidence.path)}:${String(evidence.line)}`,
          locations: locationsOf(secret, repo.branch, scope.history),
        });
      }
      if (ignore && ignore.invalidLines.length > 0) {
        context.progress('ignore file has lines that are not fingerprints', { lines: ignore.invalidLines.slice(0, 20) });
      }
      const detail =
        summary(result, walk.commits, walk.truncated, walk.submodules.size, result.secrets.length - kept.length) +
        (walk.sightingsLeftOut > 0
          ? `; ${walk.sightingsLeftOut} more paths of files seen at over ${MAX_SIGHTINGS_PER_BLOB} paths not listed`
          : '');
      if (walk.cutAt.length > 0) {
        // A history the server cut is not a clean one: what it shows counts, nothing passes.
        report.error(
          RULE_IDS,
          `the server declared the history shallow at ${walk.cutAt.map((oid) => oid.slice(0, 12)).join(', ')}: ${walk.commits} of up to ${scope.maxCommits} commits were read and older ones were not sent; ${detail}`,
        );
      } else if (result.unfinished) {
        report.error(
          RULE_IDS,
          `the scan's deadline passed after ${result.unfinished.scanned} of ${result.unfinished.total} files; ${detail}`,
        );
      } else {
        for (const ruleId of RULE_IDS) report.pass(ruleId, detail);
      }
      context.progress('files scanned', { files: result.stats.blobsScanned, bytes: result.stats.bytesScanned, secrets: kept.length });
    } finally {
      await repo.dispose();
    }
  } catch (error) {
    const message = context.signal.aborted
      ? `the scan's deadline passed during the ${phase}`
      : redact(error instanceof Error ? error.message : String(error), secrets());
    context.progress('scan failed', { error: message });
    report.error(RULE_IDS, message);
  } finally {
    if (scratch !== undefined) await releaseTempFolder(scratch);
  }
}
