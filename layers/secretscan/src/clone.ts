import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git, { Errors } from 'isomorphic-git';
import { makeCloneFs, type CloneFs } from './clone-fs.ts';
import type { GitHttpClient } from './git-http.ts';

export interface CloneOptions {
  url: string;
  /** The branch to scan; the remote's default branch when absent. */
  branch?: string;
  /** Commits to fetch: 1 for the tip alone (history off), else max_commits + 1 (one more tells a cut history). */
  depth: number;
  http: GitHttpClient;
  signal: AbortSignal;
  /** Where the temporary clone goes (the OS temporary folder by default: /tmp in Lambda). */
  tmpRoot?: string;
}

export interface ClonedRepository {
  fs: CloneFs;
  gitdir: string;
  /** The scanned branch's name and tip. */
  branch: string;
  tip: string;
  /** isomorphic-git's object cache: every read of this clone shares the parsed pack index. */
  cache: object;
  /** Removes the clone from disk. */
  dispose(): Promise<void>;
}

/**
 * The phases of isomorphic-git's own pack indexing, where it awaits the progress callback, so a
 * throw there stops the indexing at the deadline. The server's phases (Counting, Compressing
 * objects) come from a loop nobody awaits: a throw there would be an unhandled rejection; the
 * transfer itself stops with the HTTP request's signal.
 */
const INDEXING_PHASES = new Set(['Receiving objects', 'Resolving deltas']);

/** The clone could not be made; the message is safe to report (no credential, no server body). */
export class CloneFailed extends Error {
  override readonly name = 'CloneFailed';
}

function describe(error: unknown, options: CloneOptions, authorized: boolean): Error {
  if (options.http.failure) return options.http.failure;
  if (options.signal.aborted) return new CloneFailed("the clone did not finish before the scan's deadline");
  if (error instanceof Errors.HttpError) {
    const status = (error.data as { statusCode?: number }).statusCode ?? 0;
    if (status === 401 || status === 403) {
      return new CloneFailed(
        authorized
          ? `the server refused the credential (HTTP ${status})`
          : `the repository needs a credential (HTTP ${status}); set scope.credential`,
      );
    }
    return new CloneFailed(`no Git repository answers at this URL (HTTP ${status})`);
  }
  if (error instanceof Errors.SmartHttpError || error instanceof Errors.ParseError || error instanceof Errors.UnknownTransportError) {
    return new CloneFailed('the URL does not speak Git smart HTTP');
  }
  if (error instanceof Errors.NotFoundError)
    return new CloneFailed(options.branch ? `branch ${options.branch} not found` : 'the repository has no default branch');
  if (error instanceof Errors.EmptyServerResponseError) return new CloneFailed('the server sent an empty response');
  const name = error instanceof Error ? error.name : 'error';
  const message = error instanceof Error ? error.message : String(error);
  return new CloneFailed(`clone failed: ${name}: ${message}`);
}

/**
 * Clones the repository in-process (no git binary in Lambda) into a temporary folder, without a
 * working tree: the scan reads objects straight from the pack. Shallow to `depth`, one branch, no
 * tags. The pack bound is the HTTP client's; the deadline aborts the transfer and, through the
 * progress callback, the pack indexing that follows it. The folder is removed on failure, and by
 * `dispose()` after the scan.
 */
export async function cloneRepository(options: CloneOptions & { authorized: boolean }): Promise<ClonedRepository> {
  const dir = await mkdtemp(join(options.tmpRoot ?? tmpdir(), 'secretscan-'));
  const gitdir = join(dir, '.git');
  const cache = {};
  const fs = makeCloneFs();
  const dispose = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    await git.clone({
      fs,
      http: options.http,
      dir,
      gitdir,
      url: options.url,
      ref: options.branch,
      singleBranch: true,
      noCheckout: true,
      noTags: true,
      depth: options.depth,
      cache,
      onProgress: ({ phase }) => {
        if (INDEXING_PHASES.has(phase)) options.signal.throwIfAborted();
      },
    });
    const branch = (await git.currentBranch({ fs, gitdir })) ?? options.branch ?? 'HEAD';
    const tip = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
    await fs.settle(gitdir);
    return { fs, gitdir, branch, tip, cache, dispose };
  } catch (error) {
    await dispose();
    throw describe(error, options, options.authorized);
  }
}
