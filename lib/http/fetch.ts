/**
 * The contract of the vetted HTTP client (lib/http/safe-fetch.ts implements it): what mailscan's
 * reputation, discover and leak checks and its vendor client call, and any engine that fetches
 * over HTTP. Its own module so that callers, the contexts that hand it to them and the
 * implementation all import it without a circle.
 */

/** One HTTP request: GET unless a vendor API needs POST with a body. */
export interface FetchOptions {
  maxBytes?: number;
  headers?: Record<string, string>;
  timeoutMs?: number;
  method?: 'GET' | 'POST';
  body?: string;
  /**
   * A credential bound to origins (`https://api.example.com`): its headers go on every hop whose
   * origin is one of `origins`, the first request included, and never to any other origin, so a
   * redirect elsewhere drops it. (`headers` go to the first origin only.)
   */
  credential?: { headers: Record<string, string>; origins: readonly string[] };
}

export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** HTTP with size cap, timeout and SSRF guard; throws FetchError (http/safe-fetch.ts) when there is no response. */
export type Fetch = (url: string, options?: FetchOptions) => Promise<FetchResponse>;
