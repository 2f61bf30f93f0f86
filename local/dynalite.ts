import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import dynalite from 'dynalite';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.ts';

export interface LocalDynamo {
  endpoint: string;
  /** Client settings for dynalite: a fixed region and dummy credentials, never the real AWS ones. */
  clientConfig: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  close(): Promise<void>;
}

interface DynaliteValidations {
  checkTypes: (data: unknown, types: unknown) => unknown;
  hardened?: boolean;
}

/**
 * dynalite validates attribute values recursively and throws a RangeError from inside its request
 * handler on deeply nested items, which ends the whole local process. DynamoDB answers a
 * ValidationException for the same request ("Nesting Levels have exceeded supported limits"), and
 * so does dynalite once this wrapper turns the overflow into that answer. The API refuses such
 * bodies long before (MAX_JSON_DEPTH); this keeps any other caller from taking the process down.
 */
function hardenDynalite(): void {
  const validations = createRequire(import.meta.url)('dynalite/validations/index.js') as DynaliteValidations;
  if (validations.hardened) return;
  const checkTypes = validations.checkTypes;
  validations.checkTypes = function checkTypesWithinStack(data, types) {
    try {
      return checkTypes(data, types);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      const body = { __type: 'com.amazon.coral.validate#ValidationException', message: 'Nesting Levels have exceeded supported limits' };
      throw Object.assign(new Error(body.message), { statusCode: 400, body });
    }
  };
  validations.hardened = true;
}

interface LevelIterator {
  next(): Promise<unknown>;
  close(): Promise<void>;
}

interface DynaliteStore {
  db: {
    keys(options: unknown): LevelIterator;
    values(options: unknown): LevelIterator;
    createKeyStream: unknown;
    createValueStream: unknown;
  };
}

interface DynaliteDb {
  create: (options: unknown) => DynaliteStore;
  closesIterators?: boolean;
}

/** A stream of an iterator's entries that closes the iterator when it ends, fails or is destroyed. */
function closingStream(iterator: LevelIterator): Readable {
  return new Readable({
    objectMode: true,
    read() {
      iterator.next().then(
        (value) => this.push(value === undefined ? null : value),
        (error: unknown) => this.destroy(error as Error),
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
 * dynalite 4 reads every Query and Scan through a stream over an abstract-level iterator and, when
 * the stream ends, "closes" the iterator with `iterator.return()`, which abstract-level iterators do
 * not have. No iterator is ever closed, and the database keeps each open one (with its read-ahead
 * buffer of items and, on disk, a LevelDB snapshot) until the database closes: about 20 KB of
 * memory for every Query the local service ever answered (docs/memory.md). These streams close
 * their iterator instead; nothing else of dynalite changes.
 */
function closeDynaliteIterators(): void {
  const db = createRequire(import.meta.url)('dynalite/db/index.js') as DynaliteDb;
  if (db.closesIterators) return;
  const create = db.create;
  db.create = function createClosingIterators(options) {
    const store = create(options);
    store.db.createKeyStream = (streamOptions: unknown) => closingStream(store.db.keys(streamOptions));
    store.db.createValueStream = (streamOptions: unknown) => closingStream(store.db.values(streamOptions));
    return store;
  };
  db.closesIterators = true;
}

/**
 * Starts dynalite on loopback: persisted under `path`, or in memory without it. Creates the
 * service table from the shared definition if it does not exist yet.
 */
export async function startDynalite({
  path,
  port = 0,
  tableName,
}: {
  path?: string;
  port?: number;
  tableName: string;
}): Promise<LocalDynamo> {
  hardenDynalite();
  closeDynaliteIterators();
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientConfig = { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  await ensureTable(clientConfig, tableName);
  return {
    endpoint,
    clientConfig,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
