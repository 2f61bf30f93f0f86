// node:fs, not node:fs/promises: the start-up snapshot initialises this module, and fs/promises
// would bring 15 of node's modules (readline, the REPL's history, file watchers) into its heap,
// read by every scan from it, for a file only a scan given --config reads, once, before it starts.
import { readFileSync, statSync } from 'node:fs';
import * as z from 'zod';
import type { VendorFileConfig } from '../vendors/vendor-config.ts';

/**
 * The `--config FILE` / MAILSCAN_CONFIG JSON file. `dnsbl`, `trustlist` and `dkim` are fixed by
 * DESIGN §6; `dns`, `senderscore`, `threatintel` and `fetch` are this build's documented extras
 * (docs/mailscan.md). Every list replaces its built-in default. Unknown keys are refused so a typo
 * never silently falls back to a default. Operator keys are not accepted here: they come only from
 * the environment.
 */
const zoneName = z.string().regex(/^(?=.{1,253}$)([a-z0-9_-]{1,63}\.)+[a-z0-9-]{1,63}\.?$/i, 'must be a DNS zone name');
const selector = z.string().regex(/^[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*$/i, 'must be a DKIM selector');
const milliseconds = z.number().int().min(50).max(120_000);
/** A vendor's section; a strict object, so an operator key written here is refused. */
const vendorFileSchema = z.strictObject({
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  timeout_ms: milliseconds.optional(),
}) satisfies z.ZodType<VendorFileConfig>;

export const configFileSchema = z.strictObject({
  dnsbl: z.strictObject({ ip_zones: z.array(zoneName).max(50).optional(), domain_zones: z.array(zoneName).max(50).optional() }).optional(),
  trustlist: z.strictObject({ zones: z.array(zoneName).max(50) }).optional(),
  dkim: z.strictObject({ selectors: z.array(selector).max(500) }).optional(),
  dns: z.strictObject({ timeout_ms: milliseconds.optional(), attempts: z.number().int().min(1).max(5).optional() }).optional(),
  senderscore: vendorFileSchema.optional(),
  threatintel: vendorFileSchema.optional(),
  fetch: z.strictObject({ timeout_ms: milliseconds.optional() }).optional(),
  // Discover and leak (docs/mailscan-discover-leak.md).
  ct: vendorFileSchema.optional(),
  breach: vendorFileSchema.optional(),
  codesearch: vendorFileSchema
    .extend({
      words: z
        .array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be one word'))
        .min(1)
        .max(50)
        .optional(),
      max_results_per_word: z.number().int().min(1).max(100).optional(),
    })
    .optional(),
  emailrep: vendorFileSchema.extend({ max_addresses: z.number().int().min(0).max(200).optional() }).optional(),
  dehashed: vendorFileSchema.optional(),
  intelx: vendorFileSchema.optional(),
  snusbase: vendorFileSchema.optional(),
  feeds: z
    .strictObject({
      page_size: z.number().int().min(1).max(10_000).optional(),
      max_records: z.number().int().min(1).max(100_000).optional(),
    })
    .optional(),
  smtp: z
    .strictObject({
      port: z.number().int().min(1).max(65_535).optional(),
      helo: z
        .string()
        .regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63}$/i, 'must be a host name')
        .optional(),
      max_probes: z.number().int().min(1).max(100).optional(),
      timeout_ms: milliseconds.optional(),
      pause_ms: z.number().int().min(0).max(10_000).optional(),
    })
    .optional(),
  lookalike: z
    .strictObject({
      max_candidates: z.number().int().min(0).max(50_000).optional(),
      concurrency: z.number().int().min(1).max(500).optional(),
      max_ct_checks: z.number().int().min(0).max(1_000).optional(),
      tlds: z
        .array(z.string().regex(/^[a-z0-9-]{2,63}(\.[a-z0-9-]{2,63})?$/i, 'must be a TLD'))
        .max(1_000)
        .optional(),
      dictionary: z
        .array(z.string().regex(/^[a-z0-9-]{1,40}$/i, 'must be a word'))
        .max(1_000)
        .optional(),
    })
    .optional(),
  certstream: z
    .strictObject({
      endpoint: z.url({ protocol: /^wss?$/ }).optional(),
      seconds: z.number().min(0).max(3_600).optional(),
      max_messages: z.number().int().min(1).max(10_000_000).optional(),
    })
    .optional(),
});

export type ConfigFile = z.infer<typeof configFileSchema>;

/** Configuration is small; a bigger file is a mistake, not something to read into memory. */
const MAX_CONFIG_BYTES = 256 * 1024;

export type ConfigLoad = { ok: true; config: ConfigFile } | { ok: false; message: string };

export async function loadConfigFile(path: string): Promise<ConfigLoad> {
  let text: string;
  try {
    const info = statSync(path);
    if (!info.isFile()) return { ok: false, message: `config ${path} is not a file` };
    if (info.size > MAX_CONFIG_BYTES) return { ok: false, message: `config ${path} is larger than ${MAX_CONFIG_BYTES} bytes` };
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, message: `cannot read config ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `config ${path} is not JSON: ${(error as Error).message}` };
  }
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    return { ok: false, message: `config ${path}: ${problems.join('; ')}` };
  }
  return { ok: true, config: parsed.data };
}
