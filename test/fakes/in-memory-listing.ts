import { decodeCursor, encodeCursor } from '../../shared/adapters/dynamodb/cursor.ts';
import type { Page } from '../../shared/ports/page.ts';

/** Where the DynamoDB adapter reads a listing from (shared/adapters/dynamodb/query-page.ts): a cursor is bound to it. */
export type Listing = { index: 'GSI1' | 'GSI2' | 'GSI3'; partition: string } | { index: ''; partition: string; skPrefix: string };

/**
 * One page of a newest-first listing as the adapters' `queryPage` returns it, over rows already
 * narrowed to the listing and its filters: ordered by the listing's sort key in byte order (as
 * DynamoDB sorts, not the locale), after the cursor's key, with a cursor only when another row
 * follows, encoded and checked by the adapter's own codec. `keyOf` gives a row's table and index
 * keys as DynamoDB would return them in LastEvaluatedKey.
 */
export function pageOf<R>(
  tenant: string,
  listing: Listing,
  rows: Iterable<R>,
  keyOf: (row: R) => Record<string, string>,
  limit: number,
  cursor?: string,
): Page<R> {
  const sortKey = listing.index === '' ? 'SK' : `${listing.index}SK`;
  const names = listing.index === '' ? ['PK', 'SK'] : ['PK', 'SK', `${listing.index}PK`, sortKey];
  const after =
    cursor === undefined
      ? undefined
      : (decodeCursor(cursor, tenant, listing.index, listing.partition, listing.index === '' ? listing.skPrefix : undefined)[
          sortKey
        ] as string);
  const keyed = [...rows]
    .map((row) => ({ row, key: keyOf(row) }))
    .filter(({ key }) => after === undefined || key[sortKey] < after)
    .sort((a, b) => (a.key[sortKey] < b.key[sortKey] ? 1 : a.key[sortKey] > b.key[sortKey] ? -1 : 0));
  const kept = keyed.slice(0, limit);
  const last = kept[kept.length - 1];
  const nextCursor =
    keyed.length > limit && last
      ? encodeCursor(tenant, listing.index, Object.fromEntries(names.map((name) => [name, last.key[name]])))
      : null;
  return { items: kept.map(({ row }) => structuredClone(row)), nextCursor };
}
