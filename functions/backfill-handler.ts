import * as z from 'zod';
import { TenantId } from '../shared/domain/identity.ts';
import type { BackfillReport } from '../shared/services/backfill-service.ts';

/** The one-off invocation payload (DESIGN §9). */
export const BackfillRequest = z.strictObject({
  dry_run: z.boolean().default(false),
  tenant: TenantId.optional(),
});

/**
 * The backfill function: parse the event, run the backfill once, return the summary. An unknown
 * tenant or a bad event fails the invocation (the operator sees the error), a failed row does not:
 * it is in the summary's `failed` counts with its reason.
 */
export function makeBackfillHandler(run: (options: { dryRun: boolean; tenant?: string }) => Promise<BackfillReport>) {
  return async function backfillScanSchedules(event: unknown): Promise<BackfillReport> {
    const request = BackfillRequest.parse(typeof event === 'object' && event !== null ? event : {});
    return run({ dryRun: request.dry_run, tenant: request.tenant });
  };
}
