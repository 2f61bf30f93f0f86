import { vendorVariable } from './vendor-client.ts';
import type { VendorConfig, VendorDefinition } from './vendor.ts';

/**
 * A vendor's section of the `--config` file: `{"<name>": {"endpoint": URL, "timeout_ms": ms}}`,
 * validated by the file's schema (config/config-file.ts). Keys are refused there on purpose: they
 * come only from the environment, so they stay out of files and process lists.
 */
export interface VendorFileConfig {
  endpoint?: string;
  timeout_ms?: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The vendor's configuration: `MAILSCAN_<NAME>_URL`, then the config file, then the definition's
 * default endpoint; the timeout from the file or the default; the key only from `MAILSCAN_<NAME>_KEY`.
 * A malformed endpoint is a usage error whose message names the variable, never the key.
 */
export function vendorConfigFromEnv(
  definition: VendorDefinition,
  env: Env,
  file: VendorFileConfig = {},
): { ok: true; config: VendorConfig } | { ok: false; message: string } {
  const endpoint = nonEmpty(env[vendorVariable(definition, 'URL')]) ?? file.endpoint ?? definition.defaultEndpoint;
  if (endpoint !== '' && !isHttpUrl(endpoint)) return { ok: false, message: `${vendorVariable(definition, 'URL')} must be an http(s) URL` };
  const key = definition.key === 'none' ? undefined : nonEmpty(env[vendorVariable(definition, 'KEY')]);
  return {
    ok: true,
    config: { endpoint, timeoutMs: file.timeout_ms ?? definition.defaultTimeoutMs, ...(key !== undefined ? { key } : {}) },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
