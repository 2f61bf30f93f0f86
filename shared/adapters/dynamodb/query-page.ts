import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from './cursor.ts';

/** One listing: which index, which partition, and the Query to run (minus Limit and start key). */
export interface ListingQuery {
  tenant: string;
  /** "" for the table, else the GSI name. */
  index: string;
  /** The partition the key of any cursor must lie in. */
  partitionPrefix: string;
  /** For table listings: the sort-key prefix the key of any cursor must have. */
  skPrefix?: string;
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>;
}

/** The key DynamoDB would return as LastEvaluatedKey for `item` in `index` ("" for the table). */
function keyOf(item: Record<string, unknown>, index: string): Record<string, unknown> {
  const key: Record<string, unknown> = { PK: item.PK, SK: item.SK };
  if (index !== '') {
    key[`${index}PK`] = item[`${index}PK`];
    key[`${index}SK`] = item[`${index}SK`];
  }
  return key;
}

/**
 * Reads one page of a listing with a tenant-bound cursor. It reads one item past the page: if it
 * exists there is a next page, and the cursor is the last kept item's key, so a client never
 * fetches an empty final page. A filter can leave a read short; it keeps reading until the page is
 * full or the index ends.
 */
export async function queryPage(
  client: DynamoDBDocumentClient,
  { tenant, index, partitionPrefix, skPrefix, input }: ListingQuery,
  limit: number,
  cursor?: string,
): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
  let startKey = cursor === undefined ? undefined : decodeCursor(cursor, tenant, index, partitionPrefix, skPrefix);
  const items: Record<string, unknown>[] = [];
  do {
    const page = await client.send(new QueryCommand({ ...input, Limit: limit + 1 - items.length, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined && items.length <= limit);
  const kept = items.slice(0, limit);
  const last = kept[kept.length - 1];
  return { items: kept, nextCursor: items.length > limit && last ? encodeCursor(tenant, index, keyOf(last, index)) : null };
}

/** Builds `FilterExpression` parts for the optional equality filters that are set. */
export function equalityFilters(
  filters: Record<string, string | boolean | undefined>,
): Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> {
  const set = Object.entries(filters).filter(([, value]) => value !== undefined);
  if (set.length === 0) return {};
  return {
    FilterExpression: set.map(([name]) => `#f_${name} = :f_${name}`).join(' AND '),
    ExpressionAttributeNames: Object.fromEntries(set.map(([name]) => [`#f_${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(set.map(([name, value]) => [`:f_${name}`, value])),
  };
}

/** Where a listing reads: a GSI partition, or the tenant's table partition narrowed to a sort-key prefix. */
export type ListingSource = { index: 'GSI1' | 'GSI2' | 'GSI3'; partition: string } | { index: ''; partition: string; skPrefix: string };

/** A newest-first listing of one partition with optional equality filters (unset ones are ignored). */
export function newestFirst(
  tableName: string,
  tenant: string,
  source: ListingSource,
  filters: Record<string, string | boolean | undefined> = {},
): ListingQuery {
  const filter = equalityFilters(filters);
  const keyCondition = source.index === '' ? 'PK = :pk AND begins_with(SK, :prefix)' : `${source.index}PK = :pk`;
  return {
    tenant,
    index: source.index,
    partitionPrefix: source.partition,
    ...(source.index === '' ? { skPrefix: source.skPrefix } : {}),
    input: {
      TableName: tableName,
      ScanIndexForward: false,
      ...(source.index === '' ? {} : { IndexName: source.index }),
      KeyConditionExpression: keyCondition,
      ...filter,
      ExpressionAttributeValues: {
        ':pk': source.partition,
        ...(source.index === '' ? { ':prefix': source.skPrefix } : {}),
        ...filter.ExpressionAttributeValues,
      },
    },
  };
}
