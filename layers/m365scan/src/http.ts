/**
 * The HTTP side of one domain's scan: two vetted clients (lib/http/safe-fetch.ts), one for the
 * deployment's Microsoft endpoints and one for hosts found through DNS or the realm answer
 * (mta-sts, autodiscover, the mail host, the federation server), which are resolved through the
 * scan's resolver and vetted by the target policy. No redirect is followed: none of the documents
 * read here is served through one, and following would spend requests nobody counted. Every request
 * spends one of the domain's 25 (DESIGN §19); a 429 is thrown as `Throttled`, never read as an answer.
 */
import { isIP } from 'node:net';
import { addressProblem, internalName } from '../../../lib/address-policy.ts';
import type { Fetch, FetchOptions, FetchResponse } from '../../../lib/http/fetch.ts';
import { FetchError, type HostLookup } from '../../../lib/http/safe-fetch.ts';
import type { TargetPolicy } from '../../../lib/target-policy.ts';

export const REQUESTS_PER_DOMAIN = 25;

/** The answer was 429 (or Microsoft's own throttle flag): the check stops as an error. */
export class Throttled extends Error {
  override readonly name = 'Throttled';
}

/** The domain's 25 requests are spent. */
export class BudgetSpent extends Error {
  override readonly name = 'BudgetSpent';
}

export interface DomainHttpOptions {
  endpointFetch: Fetch;
  hostFetch: Fetch;
  /** Milliseconds left before the scan must stop asking. */
  remainingMs: () => number;
  requestTimeoutMs: number;
  /** The target policy: an IP-literal URL (a realm's AuthURL may be one) is judged by it before anything is sent. */
  policy: TargetPolicy;
}

/**
 * `lookup` with every address judged by the exact target policy. The vetted client's own check
 * admits loopback with private ranges alike (mailscan's one switch); this keeps a deployment that
 * scans private networks from fetching a name that resolves to loopback.
 */
export function policyLookup(lookup: HostLookup, policy: TargetPolicy): HostLookup {
  return async (hostname) => {
    if (internalName(hostname) === 'loopback' && !policy.allowLoopback)
      throw new FetchError('address_blocked', `${hostname} is this machine`);
    const addresses = await lookup(hostname);
    for (const { address } of addresses) {
      const problem = addressProblem(address, policy);
      if (problem) throw new FetchError('address_blocked', `${hostname} resolves to ${address} (${problem})`);
    }
    return addresses;
  };
}

export class DomainHttp {
  private spent = 0;
  private readonly options: DomainHttpOptions;

  constructor(options: DomainHttpOptions) {
    this.options = options;
  }

  get requests(): number {
    return this.spent;
  }

  /** A request to a configured Microsoft endpoint. */
  endpoint(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    return this.send(this.options.endpointFetch, url, options);
  }

  /** A request to a host the domain's DNS (or the realm answer) named. */
  host(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    return this.send(this.options.hostFetch, url, options);
  }

  private async send(fetch: Fetch, url: string, options: FetchOptions): Promise<FetchResponse> {
    if (this.spent >= REQUESTS_PER_DOMAIN) throw new BudgetSpent(`the ${REQUESTS_PER_DOMAIN} requests allowed for the domain are spent`);
    const left = this.options.remainingMs();
    if (left <= 0) throw new FetchError('timeout', "the scan's deadline passed");
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) {
      const problem = addressProblem(host, this.options.policy);
      if (problem) throw new FetchError('address_blocked', `${host} is refused (${problem})`);
    }
    this.spent += 1;
    const response = await fetch(url, { ...options, timeoutMs: Math.min(options.timeoutMs ?? this.options.requestTimeoutMs, left) });
    if (response.status === 429) {
      const after = response.headers['retry-after'];
      throw new Throttled(`throttled: ${new URL(url).host} answered 429${after ? ` (Retry-After ${after.slice(0, 40)})` : ''}`);
    }
    return response;
  }
}

/** Why a request produced nothing usable, in a sentence for a check's error. */
export function describeFailure(what: string, error: unknown): string {
  if (error instanceof Throttled || error instanceof BudgetSpent) return `${what}: ${error.message}`;
  if (error instanceof FetchError) {
    if (error.code === 'too_many_redirects') return `${what}: answered with a redirect, which is not followed`;
    return `${what}: ${error.message}`;
  }
  return `${what}: ${error instanceof Error ? error.message : String(error)}`;
}

const decoder = new TextDecoder('utf-8', { fatal: false });
export const text = (response: FetchResponse): string => decoder.decode(response.body);

/** The body as a JSON object, or a message saying why it is not one. */
export function jsonObject(response: FetchResponse): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text(response));
  } catch {
    return `not JSON (HTTP ${response.status}, ${response.body.length} bytes)`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `JSON but not an object (HTTP ${response.status})`;
  return value as Record<string, unknown>;
}
