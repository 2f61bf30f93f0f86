/**
 * The contract of the scanner's one HTTP client (http/safe-fetch.ts implements it): what the
 * reputation, discover and leak checks and the vendor client call. Its own module so that they,
 * the context that hands it to them and the implementation all import it without a circle.
 */

/** One HTTP request: GET unless a vendor API needs POST with a body. */
export interface FetchOptions {
  maxBytes?: number;
  headers?: Record<string, string>;
  timeoutMs?: number;
  method?: 'GET' | 'POST';
  body?: string;
}

export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** HTTP with size cap, timeout and SSRF guard; throws FetchError (http/safe-fetch.ts) when there is no response. */
export type Fetch = (url: string, options?: FetchOptions) => Promise<FetchResponse>;
