import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { retry } from '../../../lib/retry.ts';

/** BatchWriteItem's limit per request. */
export const BATCH_WRITE = 25;
/** BatchGetItem's limit per request. */
export const BATCH_GET = 100;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** What a batch call left unprocessed after its last attempt. */
class Unprocessed extends Error {}

/**
 * Sends `pending` with `send` until nothing is left unprocessed: 8 calls at most, full-jitter
 * backoff from 50 ms doubling to 3.2 s between them (DynamoDB throttles partitions briefly). A
 * failed call is not retried here: the SDK's own retries already ran for it.
 */
async function untilProcessed<T>(pending: T[], send: (pending: T[]) => Promise<T[]>, left: (count: number) => string): Promise<void> {
  await retry(
    async () => {
      pending = await send(pending);
      if (pending.length > 0) throw new Unprocessed(left(pending.length));
    },
    { attempts: 8, baseMs: 50, maxMs: 3_200, retryable: (error) => error instanceof Unprocessed },
  );
}

/** Writes put/delete requests 25 a request, retrying unprocessed items with backoff. */
export async function batchWrite(client: DynamoDBDocumentClient, tableName: string, requests: Record<string, unknown>[]): Promise<void> {
  for (const chunk of chunks(requests, BATCH_WRITE)) {
    await untilProcessed(
      chunk,
      async (pending) => {
        const output = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        return output.UnprocessedItems?.[tableName] ?? [];
      },
      (count) => `BatchWriteItem left ${count} items unprocessed`,
    );
  }
}

/** Reads keys 100 a request (strongly consistent), retrying unprocessed keys with backoff. */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyList: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const chunk of chunks(keyList, BATCH_GET)) {
    await untilProcessed(
      chunk,
      async (pending) => {
        const output = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
        items.push(...(output.Responses?.[tableName] ?? []));
        return (output.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
      },
      (count) => `BatchGetItem left ${count} keys unprocessed`,
    );
  }
  return items;
}
