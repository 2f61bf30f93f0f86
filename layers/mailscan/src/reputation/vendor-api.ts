import type { z } from 'zod';
import { FetchError } from '../http/safe-fetch.ts';
import type { ReputationContext } from './context.ts';
import { errorMessage } from './check-result.ts';
import { reputationDefaults } from './defaults.ts';

/** One keyed GET to a vendor API. The key travels only in a header and never into a message. */
export type VendorAnswer<T> = { kind: 'ok'; body: T } | { kind: 'not_found' } | { kind: 'error'; message: string };

export async function getVendorJson<T>(
  ctx: ReputationContext,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  schema: z.ZodType<T>,
): Promise<VendorAnswer<T>> {
  let response: Awaited<ReturnType<ReputationContext['fetch']>>;
  try {
    response = await ctx.fetch(url, { headers: { accept: 'application/json', ...headers }, timeoutMs, maxBytes: reputationDefaults.apiMaxBytes });
  } catch (error) {
    return { kind: 'error', message: error instanceof FetchError ? `${error.code}: ${error.message}` : errorMessage(error) };
  }
  if (response.status === 404) return { kind: 'not_found' };
  if (response.status !== 200) return { kind: 'error', message: `HTTP ${response.status}` };
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(response.body));
  } catch {
    return { kind: 'error', message: 'the response is not JSON' };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { kind: 'error', message: `unexpected response shape: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}` };
  return { kind: 'ok', body: parsed.data };
}

/** Joins without dropping a path prefix of the endpoint (an operator's proxy may live under one). */
export function endpointUrl(endpoint: string, path: string): string {
  return `${endpoint.replace(/\/+$/, '')}${path}`;
}
