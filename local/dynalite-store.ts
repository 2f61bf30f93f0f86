import { statfs } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

interface LevelIterator {
  next(): Promise<unknown>;
  close(): Promise<void>;
}

type Callback = (error: Error | null, ...results: unknown[]) => void;
type CallbackMethod = (...args: unknown[]) => unknown;

interface LevelDb {
  status: string;
  keys(options: unknown): LevelIterator;
  values(options: unknown): LevelIterator;
  open(): Promise<void>;
  close: { _original?: () => Promise<void> };
  createKeyStream: unknown;
  createValueStream: unknown;
}

interface DynaliteStore {
  db: LevelDb & Record<(typeof WRITES)[number] | 'get', CallbackMethod>;
}

interface DynaliteDb {
  create: (options: { path?: string }) => DynaliteStore;
  patched?: boolean;
}

/** The store's callback methods that write; every item write of dynalite goes through one. */
const WRITES = ['put', 'del', 'batch'] as const;

/** Free space below which a store that hit a storage error does not try to reopen yet. */
const REOPEN_FREE_BYTES = 1024 * 1024;

/**
 * What DynamoDB answers a request it cannot serve: HTTP 500 `InternalServerError`, which the SDK
 * retries and then throws, and the adapters turn into 503 storage_unavailable (document-client.ts).
 */
function unavailable(reason: string): Error {
  const body = { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: `local storage unavailable: ${reason}` };
  return Object.assign(new Error(body.message), { statusCode: 500, body });
}

const isStorageError = (error: unknown) => (error as { code?: string } | null)?.code === 'LEVEL_IO_ERROR';

/**
 * Keeps one store serving through a full disk. The first storage error (LevelDB's IO error) stops
 * every write: LevelDB may have left part of the failed record in its log, and a later write
 * appended after it would be acknowledged and then dropped when the log is replayed. Writes are
 * refused (as `unavailable`) until the database has been closed and opened again, which replays
 * the log up to the torn record and starts a fresh one; that is tried, one attempt at a time,
 * when a refused write finds free space again. Reads go on while the database is open.
 */
class StorageGuard {
  #failed: string | null = null;
  #reopening: Promise<void> | null = null;

  constructor(
    private readonly db: LevelDb,
    private readonly path: string | undefined,
  ) {}

  /**
   * The refusal for an operation that may not reach the database now, or null. While it opens,
   * abstract-level holds operations until it is open; closed without a storage error is shutdown.
   */
  refusal(write: boolean): Error | null {
    const closed = this.db.status === 'closed' || this.db.status === 'closing';
    if (this.#failed === null) return closed ? unavailable('the store is closed') : null;
    if (!write && !closed) return null;
    this.#reopenWhenSpace();
    return unavailable(this.#failed);
  }

  /** An operation's error: a storage error stops writes until the store reopened. */
  seen(error: unknown): Error | null {
    if (!error) return null;
    if (!isStorageError(error)) return error as Error;
    this.#failed ??= (error as Error).message;
    return unavailable(this.#failed);
  }

  #reopenWhenSpace(): void {
    this.#reopening ??= (async () => {
      try {
        if (this.path) {
          const space = await statfs(this.path);
          if (space.bavail * space.bsize < REOPEN_FREE_BYTES) return;
        }
        if (this.db.status === 'open') await (this.db.close._original ?? (() => Promise.resolve()))();
        await this.db.open();
        this.#failed = null;
      } catch {
        // Still no room to replay the log: the next refused write tries again.
      } finally {
        this.#reopening = null;
      }
    })();
  }

  /** `method` refused while the store may not serve it, its storage errors made `unavailable`. */
  guard(method: CallbackMethod, write: boolean): CallbackMethod {
    return (...args) => {
      const refusal = this.refusal(write);
      const callback = args.at(-1);
      // Called promise-style (without a callback), as dynalite does in places.
      if (typeof callback !== 'function') {
        if (refusal) return Promise.reject(refusal);
        return (method(...args) as Promise<unknown>).catch((error: unknown) =>
          Promise.reject(this.seen(error) ?? new Error(String(error))),
        );
      }
      if (refusal) return void setImmediate(callback as Callback, refusal);
      const answer: Callback = (error, ...results) => (callback as Callback)(this.seen(error), ...results);
      return method(...args.slice(0, -1), answer);
    };
  }
}

/** A stream of an iterator's entries that closes the iterator when it ends, fails or is destroyed. */
function closingStream(guard: StorageGuard, open: () => LevelIterator): Readable {
  const refusal = guard.refusal(false);
  if (refusal)
    return new Readable({
      read() {
        this.destroy(refusal);
      },
    });
  const iterator = open();
  return new Readable({
    objectMode: true,
    read() {
      iterator.next().then(
        (value) => this.push(value === undefined ? null : value),
        (error: unknown) => this.destroy(guard.seen(error) ?? undefined),
      );
    },
    destroy(error, callback) {
      iterator.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}

/**
 * Two repairs of dynalite 4's store, made where it creates one (nothing else of dynalite changes):
 *
 * - Its Query and Scan streams "close" their abstract-level iterator with `iterator.return()`, which
 *   those iterators do not have. No iterator was ever closed, and the database kept each open one
 *   (its read-ahead buffer of items and, on disk, a LevelDB snapshot) until it closed: about 20 KB
 *   for every Query the local service answered (docs/memory.md). These streams close it.
 * - A storage error (a full disk) reached dynalite's request handler without a status, which
 *   rethrew it from a callback and ended the whole process: API, scheduler and queue. It is now the
 *   500 DynamoDB itself answers when it cannot serve a request (docs/disk-full.md).
 */
export function patchDynaliteStore(): void {
  const db = createRequire(import.meta.url)('dynalite/db/index.js') as DynaliteDb;
  if (db.patched) return;
  const create = db.create;
  db.create = function createPatchedStore(options) {
    const store = create(options);
    const guard = new StorageGuard(store.db, options?.path);
    store.db.createKeyStream = (streamOptions: unknown) => closingStream(guard, () => store.db.keys(streamOptions));
    store.db.createValueStream = (streamOptions: unknown) => closingStream(guard, () => store.db.values(streamOptions));
    store.db.get = guard.guard(store.db.get.bind(store.db), false);
    for (const method of WRITES) store.db[method] = guard.guard(store.db[method].bind(store.db), true);
    return store;
  };
  db.patched = true;
}
