import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StorageUnavailableError } from '../../domain/errors.ts';
import { TABLE_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/** DynamoDB's answers for "cannot serve this now", which the SDK has already retried. */
const UNAVAILABLE = new Set(['InternalServerError', 'ServiceUnavailable']);

function isUnavailable(error: unknown): boolean {
  return error instanceof Error && UNAVAILABLE.has(error.name);
}

/**
 * The document client used by every DynamoDB adapter; create it once per process. A table that
 * cannot serve a request becomes StorageUnavailableError (503 storage_unavailable) instead of a
 * bare 500: locally that is dynalite on a full disk (docs/disk-full.md). Without a config (the
 * functions' composition roots) each attempt is bounded (aws-request-handler.ts); the local
 * runtime passes dynalite's endpoint and keeps the SDK's defaults.
 */
export function makeDocumentClient(
  config: DynamoDBClientConfig = { requestHandler: boundedRequestHandler(TABLE_ATTEMPT) },
): DynamoDBDocumentClient {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
  client.middlewareStack.add(
    (next) =>
      async function storageUnavailable(args) {
        try {
          return await next(args);
        } catch (error) {
          if (isUnavailable(error)) throw new StorageUnavailableError('the data store is unavailable; retry later', []);
          throw error;
        }
      },
    { step: 'initialize', name: 'storageUnavailable' },
  );
  return client;
}
