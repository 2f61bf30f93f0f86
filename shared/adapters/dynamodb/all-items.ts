import {
  QueryCommand,
  ScanCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';

/** Every item a Query matches, one request per page, for walks that read a whole partition. */
export function queryAll(
  client: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): AsyncIterable<Record<string, unknown>> {
  return pages((startKey) => client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey })));
}

/** Every item a Scan matches, one request per page, for walks across tenants (reconcile, recovery). */
export function scanAll(
  client: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): AsyncIterable<Record<string, unknown>> {
  return pages((startKey) => client.send(new ScanCommand({ ...input, ExclusiveStartKey: startKey })));
}

type Page = { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };

async function* pages(read: (startKey: Record<string, unknown> | undefined) => Promise<Page>): AsyncIterable<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await read(startKey);
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}
