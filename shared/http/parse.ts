import type * as z from 'zod';
import { ValidationError, zodIssues, type FieldIssue } from '../domain/errors.ts';
import { storableIssues } from '../domain/storable.ts';
import { MAX_JSON_DEPTH } from './middlewares.ts';

/**
 * Parses a JSON body with a strict zod schema. Read-only fields are named as such rather than
 * as unknown, so the client learns why its write was refused.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, readOnlyFields: readonly string[] = []): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('the body must be a JSON object', [{ field: '', message: 'must be a JSON object' }]);
  }
  // Before zod: a `__proto__` key would be dropped by the copy it makes, never refused.
  const unstorable = storableIssues(body, '', MAX_JSON_DEPTH);
  if (unstorable.length > 0) throw new ValidationError('the request is not valid', unstorable);
  const readOnly: FieldIssue[] = readOnlyFields.filter((field) => field in body).map((field) => ({ field, message: 'is read-only' }));
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !readOnlyFields.includes(key)));
  const parsed = schema.safeParse(rest);
  const issues = [...readOnly, ...(parsed.success ? [] : zodIssues(parsed.error))];
  if (issues.length > 0 || !parsed.success) throw new ValidationError('the request is not valid', issues);
  return parsed.data;
}

/** Parses query parameters with a strict zod schema. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new ValidationError('the query is not valid', zodIssues(parsed.error));
  return parsed.data;
}
