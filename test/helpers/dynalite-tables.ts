import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.ts';
import { startDynalite, type LocalDynamo } from '../../local/dynalite.ts';

/**
 * One in-memory dynalite per test file, and a fresh service table (the shared definition) per
 * contract test, so every test starts from an empty store without deleting anything.
 */
export class DynaliteTables {
  #server: Promise<LocalDynamo> | null = null;
  #client: DynamoDBDocumentClient | null = null;
  #tables = 0;

  /** A document client and the name of a table nobody has written to yet. */
  async freshTable(): Promise<{ client: DynamoDBDocumentClient; tableName: string }> {
    this.#server ??= startDynalite({ tableName: 'contract-0' });
    const server = await this.#server;
    this.#client ??= makeDocumentClient(server.clientConfig);
    this.#tables += 1;
    const tableName = `contract-${this.#tables}`;
    await ensureTable(server.clientConfig, tableName);
    return { client: this.#client, tableName };
  }

  async close(): Promise<void> {
    this.#client?.destroy();
    if (this.#server) await (await this.#server).close();
  }
}
