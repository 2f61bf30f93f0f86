import * as z from 'zod';

/**
 * `limit` of every listing: 1–200, default 50, written in decimal digits only. Number() would read
 * `0x10`, `1e2`, ` 5` and `5.0` as numbers; a client sending those has a bug we should tell it about.
 */
function pageLimit() {
  return z
    .string()
    .regex(/^[0-9]{1,3}$/, 'must be a whole number from 1 to 200, in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a whole number from 1 to 200').max(200, 'must be a whole number from 1 to 200'))
    .default(50);
}

/**
 * `limit` and `cursor` of every list endpoint (DESIGN §3). The list queries spread these fields
 * after their filters when they are first built, and the OpenAPI document reads the query
 * parameters, their schemas and descriptions from those same schemas. A cursor is the
 * `next_cursor` of the previous page of the same listing with the same filters (authenticated:
 * shared/http/page-cursor.ts).
 */
export function pageQueryFields() {
  return {
    limit: pageLimit().describe('page size: 1-200 in decimal digits'),
    cursor: z.string().min(1).max(2048).optional().describe('next_cursor of the previous page'),
  };
}
