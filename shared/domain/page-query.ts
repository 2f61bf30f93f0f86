import * as z from 'zod';

/**
 * `limit` and `cursor` of every list endpoint (DESIGN §3). The list queries spread it after their
 * filters, and the OpenAPI document reads the query parameters, their schemas and descriptions
 * from those same schemas.
 */
export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('page size'),
  cursor: z.string().min(1).max(2048).optional().describe('next_cursor of the previous page'),
});
export type PageQuery = z.infer<typeof PageQuery>;
