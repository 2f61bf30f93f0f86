/**
 * What the runner hands the engine beside the scope, in the `--config FILE` object (never in the
 * scope: a tenant cannot write it): the SHA-256 hashes of the tenant's open secret_scan issues, and
 * the window of the previous nhi scan of the same alias (a last use inside it is the scanner's own).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';

export const NhiContext = z.object({
  /** Lower-case hex SHA-256 of each open secret_scan issue's secret value in the tenant. */
  leaked_sha256: z
    .array(z.string().regex(/^[0-9a-f]{64}$/))
    .max(100_000)
    .optional(),
  /** False when the tenant has more open secret issues than the runner read: no match is then not a pass. */
  leaked_sha256_complete: z.boolean().optional(),
  /** The previous nhi scan of this alias: its start and, when it finished, its end (ISO 8601). */
  previous_scan: z
    .object({ started_at: z.iso.datetime({ offset: true }), finished_at: z.iso.datetime({ offset: true }).nullable() })
    .nullable()
    .optional(),
});
export type NhiContext = z.infer<typeof NhiContext>;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
