import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptPack } from './delta.ts';
import type { GitHttpClient } from './git-http.ts';
import { ObjectTooLarge, PackStore } from './pack-store.ts';
import { PktLineError } from './pkt-line.ts';
import {
  advertisedRefs,
  fetchPack,
  GitHttpStatus,
  NotSmartHttp,
  PackFileWriter,
  RemoteFailure,
  type Advertisement,
} from './upload-pack.ts';

export interface CloneOptions {
  url: string;
  /** The branch to scan; the remote's default branch when absent. */
  branch?: string;
  /** Commits to fetch: 1 for the tip alone (history off), else max_commits + 1 (one more tells a cut history). */
  depth: number;
  http: GitHttpClient;
  signal: AbortSignal;
  /** Where the temporary pack goes (the OS temporary folder by default: /tmp in Lambda). */
  tmpRoot?: string;
  /** The pack reader's delta-base cache, its largest in-memory object, the commits and trees it keeps inflated (pack-store.ts). */
  cacheBytes: number;
  maxObjectBytes: number;
  keptBytes?: number;
  /** Each blob as the indexing pass resolves it (pack-store.ts). */
  onBlob?: (ordinal: number, content: Uint8Array) => void;
}

export interface ClonedRepository {
  /** The fetched pack, indexed: every object of the branch's walked history, read by id. */
  store: PackStore;
  /** The scanned branch's name and tip. */
  branch: string;
  tip: string;
  packBytes: number;
  /** Commits the server declared shallow: their parents were left out of the pack on purpose. */
  shallow: ReadonlySet<string>;
  /** Removes the pack from disk. */
  dispose(): Promise<void>;
}

/** The clone could not be made; the message is safe to report (no credential, no server body). */
export class CloneFailed extends Error {
  override readonly name = 'CloneFailed';
}

class RefNotFound extends Error {}

function describe(error: unknown, options: CloneOptions, authorized: boolean): Error {
  if (options.http.failure) return options.http.failure;
  if (options.signal.aborted) return new CloneFailed("the clone did not finish before the scan's deadline");
  if (error instanceof GitHttpStatus) {
    if ((error.status === 401 || error.status === 403) && options.http.credentialWithheldFrom !== undefined) {
      return new CloneFailed(
        `the repository redirected to ${options.http.credentialWithheldFrom}, another origin, which answered HTTP ${error.status}: the credential is never sent across origins`,
      );
    }
    if (error.status === 401 || error.status === 403) {
      return new CloneFailed(
        authorized
          ? `the server refused the credential (HTTP ${error.status})`
          : `the repository needs a credential (HTTP ${error.status}); set scope.credential`,
      );
    }
    return new CloneFailed(`no Git repository answers at this URL (HTTP ${error.status})`);
  }
  if (error instanceof NotSmartHttp || error instanceof PktLineError) return new CloneFailed('the URL does not speak Git smart HTTP');
  if (error instanceof RefNotFound)
    return new CloneFailed(options.branch ? `branch ${options.branch} not found` : 'the repository has no default branch');
  if (error instanceof RemoteFailure || error instanceof CorruptPack || error instanceof ObjectTooLarge)
    return new CloneFailed(error.message);
  const name = error instanceof Error ? error.name : 'error';
  const message = error instanceof Error ? error.message : String(error);
  return new CloneFailed(`clone failed: ${name}: ${message}`);
}

/** The ref to fetch: the scope's branch, else what HEAD points at. */
function chooseRef(advertised: Advertisement, branch: string | undefined): { ref: string; oid: string } {
  const wanted = branch === undefined ? advertised.head : branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
  if (wanted !== undefined) {
    const oid = advertised.refs.get(wanted);
    if (oid === undefined) throw new RefNotFound();
    return { ref: wanted, oid };
  }
  // A server that does not say where HEAD points: the branch at HEAD's commit.
  const head = advertised.refs.get('HEAD');
  const named = [...advertised.refs].find(([ref, oid]) => ref.startsWith('refs/heads/') && oid === head);
  if (!named) throw new RefNotFound();
  return { ref: named[0], oid: named[1] };
}

/**
 * Fetches one branch in-process (no git binary in Lambda) over smart HTTP (upload-pack.ts): its
 * pack, shallow to `depth` commits, goes to a temporary folder and is indexed there (pack-store.ts).
 * The pack bound is the HTTP client's; the deadline aborts the transfer and the indexing. The
 * folder is removed on failure, and by `dispose()` after the scan.
 */
export async function cloneRepository(options: CloneOptions & { authorized: boolean }): Promise<ClonedRepository> {
  const dir = await mkdtemp(join(options.tmpRoot ?? tmpdir(), 'git-clone-'));
  let store: PackStore | undefined;
  const dispose = async (): Promise<void> => {
    store?.close();
    store = undefined;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const advertised = await advertisedRefs(options.http, options.url, options.branch);
    const { ref, oid } = chooseRef(advertised, options.branch);
    const packFile = join(dir, 'fetched.pack');
    const pack = new PackFileWriter(packFile);
    // The pass indexes behind the transfer; a pass that fails stops the transfer; both settle
    // before anything is thrown (the folder is removed after).
    const indexing = PackStore.open(
      packFile,
      {
        cacheBytes: options.cacheBytes,
        maxObjectBytes: options.maxObjectBytes,
        keptBytes: options.keptBytes,
        signal: options.signal,
        onBlob: options.onBlob,
      },
      pack,
    );
    indexing.catch(() => pack.stop());
    const [fetched, opened] = await Promise.allSettled([
      fetchPack(options.http, options.url, { want: oid, depth: options.depth, capabilities: advertised.capabilities, pack }),
      indexing,
    ]);
    if (opened.status === 'fulfilled') store = opened.value;
    if (opened.status === 'rejected') throw opened.reason;
    if (fetched.status === 'rejected') throw fetched.reason;
    options.signal.throwIfAborted();
    if (!opened.value.has(oid)) throw new CorruptPack(`the pack does not hold the branch's tip ${oid}`);
    return {
      store: opened.value,
      branch: ref.replace(/^refs\/heads\//, ''),
      tip: oid,
      packBytes: fetched.value.packBytes,
      shallow: new Set(fetched.value.shallow),
      dispose,
    };
  } catch (error) {
    await dispose();
    throw describe(error, options, options.authorized);
  }
}
