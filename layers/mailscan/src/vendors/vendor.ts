// A vendor as declared (VendorDefinition) and as configured (VendorConfig): the contract the vendor
// client, its configuration and the scan context all import, in a module that imports none of them.

export interface VendorDefinition {
  /** Config-file key and environment infix: `senderscore` → `senderscore.endpoint`, `MAILSCAN_SENDERSCORE_URL`/`_KEY`. */
  name: string;
  /** `required`: never contacted without a key. `optional`: keyless requests work, keyed ones need the key. `none`: no key at all. */
  key: 'required' | 'optional' | 'none';
  /** The header(s) that carry the key, e.g. `(key) => ({ 'x-api-key': key })` or `{ authorization: \`Bearer ${key}\` }`. */
  keyHeaders?: (key: string) => Record<string, string>;
  /** '' when there is no default vendor: a key without an endpoint is then an error. */
  defaultEndpoint: string;
  defaultTimeoutMs: number;
  /** Response body cap (bytes); 512 KiB when not given. */
  maxBytes?: number;
}

/** A vendor's resolved configuration; the key comes only from the environment. */
export interface VendorConfig {
  endpoint: string;
  key?: string;
  timeoutMs: number;
}
