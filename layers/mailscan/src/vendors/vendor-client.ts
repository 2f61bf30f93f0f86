import type * as z from 'zod';
import type { CheckError, ReputationContext } from '../reputation/context.ts';
import { FetchError } from '../../../../lib/http/safe-fetch.ts';
import type { VendorConfig, VendorDefinition } from './vendor.ts';

// The one client for the scanner's keyed HTTP services (sender score, threat intelligence, and the
// discover/leak vendors of DESIGN §6). A vendor is declared once as a `VendorDefinition`
// (vendors/vendor.ts); its configuration (`vendorConfigFromEnv`) and every request go through here,
// so each vendor gets the same guarantees: the SSRF-guarded, size-capped fetch, its own timeout, the
// key only in a header, never contacted without a required key, and one error entry shape naming
// its check.

/** How one request ended: a body matching the schema, the vendor's "no data" (404), or an error message without the key. */
export type VendorAnswer<T> = { kind: 'ok'; body: T } | { kind: 'not_found' } | { kind: 'error'; message: string };

export interface VendorRequest {
  /** Path and query under the endpoint, e.g. `/v1/score?ip=192.0.2.1` (the endpoint's own path prefix is kept). */
  path: string;
  method?: 'GET' | 'POST';
  /** Sent as JSON (`content-type: application/json`); implies POST unless `method` says otherwise. */
  json?: unknown;
  /** For an `optional`-key vendor: this request needs the key (`client.keyed` says whether there is one). */
  keyed?: boolean;
}

export interface VendorClient {
  readonly name: string;
  /** Whether a key is configured (always true for a `required`-key vendor, whose client exists only with one). */
  readonly keyed: boolean;
  /** GET or POST `request`, parse the JSON body with `schema`. 404 is `not_found`; every other non-200 is an error. */
  request<T>(request: VendorRequest, schema: z.ZodType<T>): Promise<VendorAnswer<T>>;
  /** An error entry of this check, with the key redacted should a vendor ever echo it. */
  error(message: string): CheckError;
}

/** Why a vendor cannot be asked: `skipped` (no key; reported, not an error) or `error` (a key without an endpoint). */
export interface VendorUnavailable {
  status: 'skipped' | 'error';
  reason: string;
  /** The error entry for `status: 'error'`. */
  errors: CheckError[];
}

export type OpenedVendor = { ok: true; client: VendorClient } | { ok: false; unavailable: VendorUnavailable };

/** What a check reports when its vendor cannot be asked: the reason in its data, no findings, the error entry if any. */
export function unavailableOutcome(unavailable: VendorUnavailable): {
  data: { status: VendorUnavailable['status']; reason: string };
  findings: never[];
  errors: CheckError[];
} {
  return { data: { status: unavailable.status, reason: unavailable.reason }, findings: [], errors: unavailable.errors };
}

const DEFAULT_MAX_BYTES = 512 * 1024;

/** The environment variable that carries the vendor's key (or endpoint). */
export function vendorVariable(definition: Pick<VendorDefinition, 'name'>, suffix: 'KEY' | 'URL'): string {
  return `MAILSCAN_${definition.name.toUpperCase()}_${suffix}`;
}

/**
 * The client for one check's use of a vendor, or why there is none. The only way to reach a
 * vendor: a `required`-key vendor without its key yields no client, so it cannot be contacted.
 */
export function openVendor(
  definition: VendorDefinition,
  config: VendorConfig,
  use: { fetch: ReputationContext['fetch']; surface: string; check: string },
): OpenedVendor {
  const entry = (message: string): CheckError => ({ surface: use.surface, check: use.check, message: redact(message, config.key) });
  if (definition.key === 'required' && !config.key) {
    return {
      ok: false,
      unavailable: {
        status: 'skipped',
        reason: `no ${definition.name} key in this deployment (${vendorVariable(definition, 'KEY')})`,
        errors: [],
      },
    };
  }
  if (!config.endpoint) {
    const reason = config.key
      ? `an operator key is set but no endpoint (${vendorVariable(definition, 'URL')})`
      : `no endpoint (${vendorVariable(definition, 'URL')})`;
    return { ok: false, unavailable: { status: 'error', reason, errors: [entry(reason)] } };
  }
  const key = definition.key === 'none' ? undefined : config.key;
  const keyHeaders = key !== undefined && definition.keyHeaders ? definition.keyHeaders(key) : {};

  async function request<T>(req: VendorRequest, schema: z.ZodType<T>): Promise<VendorAnswer<T>> {
    // A programming error, not a vendor answer: a keyless client must never send a keyed request.
    if (req.keyed && key === undefined) throw new Error(`vendor ${definition.name}: a keyed request without a key`);
    const method = req.method ?? (req.json !== undefined ? 'POST' : 'GET');
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(req.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...keyHeaders,
    };
    let response: Awaited<ReturnType<ReputationContext['fetch']>>;
    try {
      response = await use.fetch(endpointUrl(config.endpoint, req.path), {
        method,
        headers,
        timeoutMs: config.timeoutMs,
        maxBytes: definition.maxBytes ?? DEFAULT_MAX_BYTES,
        ...(req.json !== undefined ? { body: JSON.stringify(req.json) } : {}),
      });
    } catch (error) {
      return {
        kind: 'error',
        message: redact(
          error instanceof FetchError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error),
          key,
        ),
      };
    }
    if (response.status === 404) return { kind: 'not_found' };
    if (response.status !== 200)
      return { kind: 'error', message: `HTTP ${response.status}${response.status === 429 ? ' (rate limited)' : ''}` };
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(response.body));
    } catch {
      return { kind: 'error', message: 'the response is not JSON' };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      return {
        kind: 'error',
        message: redact(
          `unexpected response shape: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
          key,
        ),
      };
    }
    return { kind: 'ok', body: parsed.data };
  }

  return { ok: true, client: { name: definition.name, keyed: key !== undefined, request, error: entry } };
}

/** Joins without dropping a path prefix of the endpoint (an operator's proxy may live under one). */
export function endpointUrl(endpoint: string, path: string): string {
  return `${endpoint.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

/** Vendor keys are long random strings; redacting a very short one would only garble messages. */
function redact(text: string, key: string | undefined): string {
  return key && key.length >= 8 ? text.split(key).join('<key>') : text;
}
