/**
 * The branch's head, read for lockfiles and manifests: a depth-1 clone through secretscan's Git
 * smart-HTTP client, the tip's tree walked for the wanted file names, their blobs decoded as text.
 */
import { cloneRepository } from '../../../lib/git/clone.ts';
import { GITLINK_MODE, parseCommit, parseTree, TREE_MODE } from '../../../lib/git/git-objects.ts';
import { GitHttpClient, type ResolveVetted } from '../../../lib/git/git-http.ts';

const DELTA_CACHE_BYTES = 16 * 1024 * 1024;
/** A lockfile larger than this is not read (the largest real ones are a few MB). */
export const MAX_LOCKFILE_BYTES = 32 * 1024 * 1024;
const MAX_TREE_ENTRIES = 200_000;

export interface HeadFiles {
  branch: string;
  commit: string;
  files: Map<string, string>;
  /** Wanted files skipped, and why (too large, binary). */
  skipped: Array<{ path: string; reason: string }>;
  /** Trees walked and entries seen (coverage). */
  entries: number;
}

export interface ReadHeadOptions {
  url: string;
  branch?: string;
  resolve: ResolveVetted;
  allowHttp: boolean;
  signal: AbortSignal;
  maxPackBytes: number;
  idleTimeoutMs: number;
  tmpRoot?: string;
  authorization?: string;
  wanted: (path: string) => boolean;
  ignored: (path: string) => boolean;
}

export async function readHead(options: ReadHeadOptions): Promise<HeadFiles> {
  const target = new URL(options.url);
  const http = new GitHttpClient({
    resolve: options.resolve,
    authorization: options.authorization,
    origin: target.origin,
    maxResponseBytes: options.maxPackBytes,
    idleTimeoutMs: options.idleTimeoutMs,
    allowHttp: options.allowHttp,
    signal: options.signal,
  });
  const repo = await cloneRepository({
    url: options.url,
    branch: options.branch,
    depth: 1,
    http,
    signal: options.signal,
    tmpRoot: options.tmpRoot,
    authorized: options.authorization !== undefined,
    cacheBytes: DELTA_CACHE_BYTES,
    maxObjectBytes: MAX_LOCKFILE_BYTES,
  });
  try {
    const files = new Map<string, string>();
    const skipped: HeadFiles['skipped'] = [];
    let entries = 0;
    const root = parseCommit(repo.tip, repo.store.read(repo.tip, 'commit')).tree;
    const stack: Array<{ oid: string; prefix: string }> = [{ oid: root, prefix: '' }];
    while (stack.length > 0) {
      options.signal.throwIfAborted();
      const { oid, prefix } = stack.pop()!;
      for (const entry of parseTree(oid, repo.store.read(oid, 'tree'))) {
        if (++entries > MAX_TREE_ENTRIES) throw new Error(`the tree has more than ${MAX_TREE_ENTRIES} entries`);
        const path = `${prefix}${entry.name}`;
        if (entry.mode === GITLINK_MODE) continue;
        if (entry.mode === TREE_MODE) {
          // Installed dependencies are not the project's lockfiles.
          if (entry.name !== 'node_modules' && entry.name !== '.git' && !options.ignored(`${path}/`))
            stack.push({ oid: entry.oid, prefix: `${path}/` });
          continue;
        }
        if (entry.mode === '120000' || !options.wanted(path) || options.ignored(path)) continue;
        if (repo.store.sizeOf(entry.oid) > MAX_LOCKFILE_BYTES) {
          skipped.push({ path, reason: `larger than ${MAX_LOCKFILE_BYTES / 1024 / 1024} MiB` });
          continue;
        }
        const bytes = repo.store.read(entry.oid, 'blob');
        if (bytes.includes(0)) {
          skipped.push({ path, reason: 'binary' });
          continue;
        }
        files.set(path, bytes.toString('utf8'));
      }
    }
    return { branch: repo.branch, commit: repo.tip, files, skipped, entries };
  } finally {
    await repo.dispose();
  }
}
