import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { CheckError, ReputationContext } from '../reputation/context.ts';
import type { VendorConfig, VendorDefinition } from '../vendors/vendor.ts';

/**
 * The external services of the discover and leak surfaces (DESIGN §6), each with its default
 * vendor's wire shape. Endpoints come from `<name>.endpoint` or `MAILSCAN_<NAME>_URL`, keys only from
 * `MAILSCAN_<NAME>_KEY`; a `required`-key service is never contacted without its key.
 */
export const CT: VendorDefinition = {
  name: 'ct',
  key: 'none',
  defaultEndpoint: 'https://crt.sh',
  defaultTimeoutMs: 20_000,
  maxBytes: 8 * 1024 * 1024,
};
export const BREACH: VendorDefinition = {
  name: 'breach',
  key: 'optional',
  keyHeaders: (key) => ({ 'hibp-api-key': key }),
  defaultEndpoint: 'https://haveibeenpwned.com/api/v3',
  defaultTimeoutMs: 10_000,
  maxBytes: 2 * 1024 * 1024,
};
export const CODESEARCH: VendorDefinition = {
  name: 'codesearch',
  key: 'required',
  keyHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  defaultEndpoint: 'https://api.github.com',
  defaultTimeoutMs: 10_000,
  maxBytes: 1024 * 1024,
};
export const EMAILREP: VendorDefinition = {
  name: 'emailrep',
  key: 'required',
  keyHeaders: (key) => ({ Key: key }),
  defaultEndpoint: 'https://emailrep.io',
  defaultTimeoutMs: 8_000,
};
export const DEHASHED: VendorDefinition = {
  name: 'dehashed',
  key: 'required',
  keyHeaders: (key) => ({ 'Dehashed-Api-Key': key }),
  defaultEndpoint: 'https://api.dehashed.com',
  defaultTimeoutMs: 15_000,
  maxBytes: 2 * 1024 * 1024,
};
export const INTELX: VendorDefinition = {
  name: 'intelx',
  key: 'required',
  keyHeaders: (key) => ({ 'x-key': key }),
  defaultEndpoint: 'https://2.intelx.io',
  defaultTimeoutMs: 15_000,
  maxBytes: 2 * 1024 * 1024,
};
export const SNUSBASE: VendorDefinition = {
  name: 'snusbase',
  key: 'required',
  keyHeaders: (key) => ({ Auth: key }),
  defaultEndpoint: 'https://api.snusbase.com',
  defaultTimeoutMs: 15_000,
  maxBytes: 2 * 1024 * 1024,
};

export const OPT_IN_VENDORS = [CT, BREACH, CODESEARCH, EMAILREP, DEHASHED, INTELX, SNUSBASE] as const;
export type OptInVendorName = 'ct' | 'breach' | 'codesearch' | 'emailrep' | 'dehashed' | 'intelx' | 'snusbase';

/** Settings of the discover and leak surfaces beyond their vendors (docs/mailscan-discover-leak.md). */
export interface OptInSettings {
  smtp: { port: number; helo: string; maxProbes: number; timeoutMs: number; pauseMs: number };
  emailrep: { maxAddresses: number };
  codesearch: { words: string[]; maxResultsPerWord: number };
  lookalike: { maxCandidates: number; concurrency: number; maxCtChecks: number; tlds?: string[]; dictionary?: string[] };
  certstream: { endpoint: string; seconds: number; maxMessages: number };
  feeds: { pageSize: number; maxRecords: number };
}

/** What the discover and leak surfaces get from the composition root. */
export interface OptInContext {
  domain: string;
  resolver: Resolver;
  fetch: ReputationContext['fetch'];
  vendors: Record<OptInVendorName, VendorConfig>;
  settings: OptInSettings;
  allowPrivate: boolean;
  /** Loopback addresses (MAILSCAN_ALLOW_LOOPBACK, local runs and tests): never implied by allowPrivate. */
  allowLoopback: boolean;
  now: () => Date;
  log: (event: string, fields?: Record<string, unknown>) => void;
  signal?: AbortSignal;
}

export interface CheckOutcome<T> {
  status: 'ok' | 'error' | 'skipped';
  data: T;
  errors: CheckError[];
}

export function surfaceError(surface: 'discover' | 'leak', check: string, message: string): CheckError {
  return { surface, check, message };
}
