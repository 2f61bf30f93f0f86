import type { ConfigFile } from '../config/config-file.ts';
import { CREDENTIAL_WORDS } from '../leak/code-search.ts';
import { vendorConfigFromEnv } from '../vendors/vendor-config.ts';
import type { VendorConfig } from '../vendors/vendor.ts';
import { OPT_IN_VENDORS, type OptInSettings, type OptInVendorName } from './services.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Defaults of the discover and leak surfaces (docs/mailscan-discover-leak.md explains each). */
export const OPT_IN_DEFAULTS = {
  smtp: { port: 25, helo: 'mailscan.invalid', maxProbes: 20, timeoutMs: 10_000, pauseMs: 250 },
  emailrep: { maxAddresses: 20 },
  codesearch: { maxResultsPerWord: 20 },
  lookalike: { maxCandidates: 5_000, concurrency: 50, maxCtChecks: 50 },
  certstream: { endpoint: 'wss://certstream.calidog.io/', seconds: 0, maxMessages: 1_000_000 },
  feeds: { pageSize: 100, maxRecords: 1_000 },
} as const;

export type OptInConfigResult =
  { ok: true; vendors: Record<OptInVendorName, VendorConfig>; settings: OptInSettings } | { ok: false; message: string };

/** Vendor endpoints and keys from MAILSCAN_* and the config file; the rest from the file or the defaults. */
export function optInConfigFromEnv(env: Env, file: ConfigFile): OptInConfigResult {
  const vendors: Partial<Record<OptInVendorName, VendorConfig>> = {};
  for (const definition of OPT_IN_VENDORS) {
    const name = definition.name as OptInVendorName;
    const section = file[name];
    const resolved = vendorConfigFromEnv(definition, env, section ? { endpoint: section.endpoint, timeout_ms: section.timeout_ms } : {});
    if (!resolved.ok) return { ok: false, message: resolved.message };
    vendors[name] = resolved.config;
  }
  const certstreamUrl = env.MAILSCAN_CERTSTREAM_URL?.trim() || file.certstream?.endpoint || OPT_IN_DEFAULTS.certstream.endpoint;
  if (!/^wss?:\/\//i.test(certstreamUrl)) return { ok: false, message: 'MAILSCAN_CERTSTREAM_URL must be a ws(s) URL' };
  const d = OPT_IN_DEFAULTS;
  return {
    ok: true,
    vendors: vendors as Record<OptInVendorName, VendorConfig>,
    settings: {
      smtp: {
        port: file.smtp?.port ?? d.smtp.port,
        helo: file.smtp?.helo ?? d.smtp.helo,
        maxProbes: file.smtp?.max_probes ?? d.smtp.maxProbes,
        timeoutMs: file.smtp?.timeout_ms ?? d.smtp.timeoutMs,
        pauseMs: file.smtp?.pause_ms ?? d.smtp.pauseMs,
      },
      emailrep: { maxAddresses: file.emailrep?.max_addresses ?? d.emailrep.maxAddresses },
      codesearch: {
        words: file.codesearch?.words ?? [...CREDENTIAL_WORDS],
        maxResultsPerWord: file.codesearch?.max_results_per_word ?? d.codesearch.maxResultsPerWord,
      },
      lookalike: {
        maxCandidates: file.lookalike?.max_candidates ?? d.lookalike.maxCandidates,
        concurrency: file.lookalike?.concurrency ?? d.lookalike.concurrency,
        maxCtChecks: file.lookalike?.max_ct_checks ?? d.lookalike.maxCtChecks,
        ...(file.lookalike?.tlds ? { tlds: file.lookalike.tlds } : {}),
        ...(file.lookalike?.dictionary ? { dictionary: file.lookalike.dictionary } : {}),
      },
      certstream: {
        endpoint: certstreamUrl,
        seconds: file.certstream?.seconds ?? d.certstream.seconds,
        maxMessages: file.certstream?.max_messages ?? d.certstream.maxMessages,
      },
      feeds: { pageSize: file.feeds?.page_size ?? d.feeds.pageSize, maxRecords: file.feeds?.max_records ?? d.feeds.maxRecords },
    },
  };
}
