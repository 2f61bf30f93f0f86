import * as z from 'zod';

/**
 * Operator tuning from `--config FILE` (docs/netscan.md): how many sockets may be connecting at
 * once, how many open ports are probed at once, how long a probe waits. Scope holds what a user
 * chooses (ports, rate, connect timeout); these are the deployment's.
 */
const TuningSchema = z.strictObject({
  max_in_flight: z.number().int().min(1).max(4096).default(512),
  probe_concurrency: z.number().int().min(1).max(256).default(16),
  greeting_ms: z.number().int().min(100).max(30_000).default(3000),
  read_timeout_ms: z.number().int().min(100).max(30_000).default(2500),
  max_bytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(64 * 1024),
});

export interface Tuning {
  maxInFlight: number;
  probeConcurrency: number;
  greetingMs: number;
  readTimeoutMs: number;
  maxBytes: number;
}

/** The `netscan` object of the config file, or the defaults. */
export function readTuning(config: Record<string, unknown>): Tuning {
  const parsed = TuningSchema.safeParse(config.netscan ?? {});
  if (!parsed.success) {
    throw new Error(
      `the config's netscan settings are not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const t = parsed.data;
  return {
    maxInFlight: t.max_in_flight,
    probeConcurrency: t.probe_concurrency,
    greetingMs: t.greeting_ms,
    readTimeoutMs: t.read_timeout_ms,
    maxBytes: t.max_bytes,
  };
}
