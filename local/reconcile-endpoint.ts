import { z } from 'zod';
import { TenantId } from '../shared/domain/identity.ts';
import type { ReconcileReport } from '../shared/services/reconcile-service.ts';
import { makeAdminEndpoint } from './admin-endpoint.ts';
import type { LocalEndpoint } from './http-server.ts';

const ReconcileRequest = z.strictObject({ dry_run: z.boolean().optional(), tenant: TenantId.optional() });

/**
 * `POST /_local/reconcile` (what `npm run reconcile` calls): authenticated by the local admin key
 * in `x-local-admin-key`, body `{dry_run?, tenant?}`. Every refusal is the DESIGN §3 error body.
 */
export function makeReconcileEndpoint(
  adminKey: string,
  reconcile: (options: { dryRun: boolean; tenant?: string }) => Promise<ReconcileReport>,
): LocalEndpoint {
  return makeAdminEndpoint(adminKey, ReconcileRequest, async ({ dry_run: dryRun = false, tenant }) => ({
    status: 200,
    body: await reconcile({ dryRun, tenant }),
  }));
}
