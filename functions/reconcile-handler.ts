import * as z from 'zod';
import { TenantId } from '../shared/domain/identity.ts';
import type { ReconcileReport } from '../shared/services/reconcile-service.ts';

/** The invocation payload; an EventBridge rule's event has none of these keys and means "repair all". */
export const ReconcileRequest = z.object({
  dry_run: z.boolean().default(false),
  tenant: TenantId.optional(),
});

export function makeReconcileHandler(reconciler: { reconcile(options: { dryRun: boolean; tenant?: string }): Promise<ReconcileReport> }) {
  return async function reconcileTriggers(event: unknown): Promise<ReconcileReport> {
    const request = ReconcileRequest.parse(typeof event === 'object' && event !== null ? event : {});
    return reconciler.reconcile({ dryRun: request.dry_run, tenant: request.tenant });
  };
}
