import { timingSafeEqual } from 'node:crypto';
import type * as z from 'zod';
import { UnauthenticatedError } from '../shared/domain/errors.ts';
import { errorResponse } from '../shared/http/error-body.ts';
import { readJsonBody } from '../shared/http/middlewares.ts';
import { parseBody } from '../shared/http/parse.ts';
import type { LocalEndpoint } from './http-server.ts';

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A local-only admin endpoint (`POST /_local/...`, what the reconcile and backfill CLIs call):
 * authenticated by the local admin key in `x-local-admin-key`, with an optional JSON body parsed by
 * `schema`, read and parsed as the API reads its bodies (readJsonBody; an empty body is `{}`). Every refusal is the DESIGN §3
 * error body: 401 without the key, 415 for a body that is not JSON, 400 invalid_json or
 * validation_error; nothing runs before the request passed all of them.
 */
export function makeAdminEndpoint<S extends z.ZodType>(
  adminKey: string,
  schema: S,
  run: (input: z.infer<S>) => ReturnType<LocalEndpoint>,
): LocalEndpoint {
  return async (request, bytes, requestId) => {
    let input: z.infer<S>;
    try {
      if (!sameSecret(request.headers['x-local-admin-key'], adminKey))
        throw new UnauthenticatedError('send the local admin key in x-local-admin-key');
      const body = bytes.length > 0 ? readJsonBody(request.headers['content-type'], bytes) : {};
      input = parseBody(schema, body);
    } catch (error) {
      const { status, body } = errorResponse(error, requestId);
      if (status >= 500) throw error;
      return { status, body };
    }
    return run(input);
  };
}
