import type { z } from 'zod';
import { NotFoundError } from '../domain/errors.ts';

/**
 * The `{id}` of a route, checked against its id schema (shared/domain/ids.ts). A malformed id
 * cannot exist in any tenant: it answers 404 like any other missing resource, never 400.
 */
export function pathId(params: Record<string, string>, schema: z.ZodString, kind: string): string {
  const id = params.id ?? '';
  if (!schema.safeParse(id).success) throw new NotFoundError(`${kind} ${id} not found`);
  return id;
}
