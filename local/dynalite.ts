import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import dynalite from 'dynalite';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.ts';
import { patchDynaliteStore } from './dynalite-store.ts';

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
  patchDynaliteStore();
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
