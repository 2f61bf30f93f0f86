import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.ts';

export interface LocalDynamo {
  endpoint: string;
  /** Client settings for dynalite: a fixed region and dummy credentials, never the real AWS ones. */
  clientConfig: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  close(): Promise<void>;
}

/**
 * Starts dynalite on loopback: persisted under `path`, or in memory without it. Creates the
 * service table from the shared definition if it does not exist yet.
 */
export async function startDynalite({ path, port = 0, tableName }: { path?: string; port?: number; tableName: string }): Promise<LocalDynamo> {
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
