import { readFile, stat } from 'node:fs/promises';
import * as z from 'zod';
import { vendorFileSchema } from '../vendors/vendor-config.ts';

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

export const configFileSchema = z.strictObject({
  dnsbl: z.strictObject({ ip_zones: z.array(zoneName).max(50).optional(), domain_zones: z.array(zoneName).max(50).optional() }).optional(),
  trustlist: z.strictObject({ zones: z.array(zoneName).max(50) }).optional(),
  dkim: z.strictObject({ selectors: z.array(selector).max(500) }).optional(),
  dns: z.strictObject({ timeout_ms: milliseconds.optional(), attempts: z.number().int().min(1).max(5).optional() }).optional(),
  senderscore: vendorFileSchema.optional(),
  threatintel: vendorFileSchema.optional(),
  fetch: z.strictObject({ timeout_ms: milliseconds.optional() }).optional(),
});

export type ConfigFile = z.infer<typeof configFileSchema>;

/** Configuration is small; a bigger file is a mistake, not something to read into memory. */
const MAX_CONFIG_BYTES = 256 * 1024;

export type ConfigLoad = { ok: true; config: ConfigFile } | { ok: false; message: string };

export async function loadConfigFile(path: string): Promise<ConfigLoad> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, message: `config ${path} is not a file` };
    if (info.size > MAX_CONFIG_BYTES) return { ok: false, message: `config ${path} is larger than ${MAX_CONFIG_BYTES} bytes` };
    text = await readFile(path, 'utf8');
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
