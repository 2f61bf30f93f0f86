import type { z } from 'zod';

/** One field's server-side complaint (DESIGN §3 `details`). */
export interface FieldIssue {
  field: string;
  message: string;
}

/** A refused request, carrying the DESIGN §3 error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldIssue[] = [],
  ) {
    super(message);
  }
}

interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Sent as Authorization: Bearer (sign-in only). */
  bearer?: string;
}

/** Sent on `window` when a call other than the sign-in ones is refused as unauthenticated. */
export const SESSION_EXPIRED_EVENT = 'scan-service:session-expired';

/**
 * One API call, same origin, the session cookie attached by the browser. A response is parsed with
 * the server's own zod schema, so the UI's types are the API's.
 */
export async function api<S extends z.ZodType>(path: string, schema: S | null, options: CallOptions = {}): Promise<z.infer<S>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(response.status, 'invalid_response', `the server answered ${response.status} with a body that is not JSON`);
  }
  if (response.status === 401 && !path.startsWith('/api/session') && !path.startsWith('/api/me')) {
    (globalThis as { dispatchEvent?: (event: Event) => boolean }).dispatchEvent?.(new Event(SESSION_EXPIRED_EVENT));
    // In the reader's words, where the form shows it: nothing was sent, and it can be sent again.
    throw new ApiError(401, 'unauthenticated', 'Your session expired, so this was not sent: sign in again, then send it again.');
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: FieldIssue[] } } | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? 'http_error',
      error?.message ?? `the server answered ${response.status}`,
      error?.details ?? [],
    );
  }
  return (schema === null ? undefined : schema.parse(json)) as z.infer<S>;
}

/** A query string from the set values of a filter object. */
export function queryString(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
