/**
 * One JSON call to a provider's API through the vetted HTTP client (lib/http/safe-fetch.ts): the
 * token goes only to the API's origin (dropped on a redirect elsewhere), the answer is bounded in
 * bytes and time, and anything but a well-formed answer is an error with words.
 */
import { FetchError } from '../../../../lib/http/safe-fetch.ts';
import type { Fetch } from '../../../../lib/http/fetch.ts';
import { CredentialRejected, ProviderError, SelfInspectionDenied } from '../review.ts';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  json: unknown;
}

export interface ApiCall {
  fetch: Fetch;
  /** The API base (NHISCAN_GITHUB_API …), without a trailing slash. */
  base: string;
  path: string;
  method?: 'GET' | 'POST';
  authorization: Record<string, string>;
  provider: string;
}

/** GET/POST `base + path` with the credential; 2xx JSON or a typed error. */
export async function callApi({ fetch, base, path, method = 'GET', authorization, provider }: ApiCall): Promise<ApiAnswer> {
  const url = `${base.replace(/\/+$/, '')}${path}`;
  const origin = new URL(url).origin;
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: { accept: 'application/json', ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(method === 'POST' ? { body: '' } : {}),
      credential: { headers: authorization, origins: [origin] },
    });
  } catch (error) {
    if (error instanceof FetchError) {
      throw new ProviderError(
        error.code === 'timeout' ? `${provider} ${path}: no answer in time` : `${provider} ${path}: ${error.message}`,
      );
    }
    throw error;
  }
  const { status, headers } = response;
  if (status === 401) throw new CredentialRejected(`${provider} answered 401 to ${path}`);
  const throttled = status === 429 || (status === 403 && headers['x-ratelimit-remaining'] === '0');
  if (throttled) throw new ProviderError(`${provider} throttled ${path} (HTTP ${status}); not judged`);
  if (status === 403) throw new SelfInspectionDenied(`${provider} answered 403 to ${path}`);
  if (status < 200 || status >= 300) throw new ProviderError(`${provider} answered HTTP ${status} to ${path}`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(response.body).toString('utf8'));
  } catch {
    throw new ProviderError(`${provider} answered ${path} with something that is not JSON`);
  }
  return { status, headers, json };
}

/** The comma-separated scopes of a header (`repo, admin:org`), or undefined when the header is absent. */
export function scopesOf(header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  return header
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope.length > 0);
}

export function objectOf(json: unknown, what: string): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ProviderError(`${what} is not a JSON object`);
  return json as Record<string, unknown>;
}
