import { z } from 'zod';
import { makePostgresLegacySource } from '../shared/adapters/postgres/postgres-legacy-source.ts';
import { TenantId } from '../shared/domain/identity.ts';
import type { Logger } from '../shared/ports/logger.ts';
import {
  BackfillUsageError,
  type BackfillProgress,
  type BackfillServiceDeps,
  makeBackfillService,
} from '../shared/services/backfill-service.ts';
import { makeAdminEndpoint } from './admin-endpoint.ts';
import type { LocalEndpoint } from './http-server.ts';

/** What `npm run backfill` sends to the running service. */
export const LocalBackfillRequest = z.strictObject({
  dry_run: z.boolean().default(false),
  /** Undo instead: remove the migrated schedules and answer the SQL that re-enables the legacy tasks. */
  rollback: z.boolean().default(false),
  tenant: TenantId.optional(),
  database_url: z.string().min(1),
});

/** One NDJSON line of the answer: progress, then the report or an error. */
export type LocalBackfillLine =
  { progress: BackfillProgress } | { report: unknown } | { rollback: unknown } | { error: { code: string; message: string } };

/**
 * `/_local/backfill`: runs the backfill inside the `npm start` process, where the local triggers
 * live, against the legacy database the CLI names. Answers NDJSON so the CLI can show progress.
 * Refusals (no admin key 401, not JSON 415/400, a bad field 400) are the DESIGN §3 error body.
 */
export function makeLocalBackfillEndpoint(deps: Omit<BackfillServiceDeps, 'source'> & { adminKey: string; logger: Logger }): LocalEndpoint {
  return makeAdminEndpoint(deps.adminKey, LocalBackfillRequest, async (request) => ({
    status: 200,
    lines: runWithProgress(deps, request),
  }));
}

async function* runWithProgress(
  deps: Omit<BackfillServiceDeps, 'source'>,
  request: z.infer<typeof LocalBackfillRequest>,
): AsyncGenerator<LocalBackfillLine> {
  const pending: LocalBackfillLine[] = [];
  let wake: (() => void) | null = null;
  const push = (line: LocalBackfillLine) => {
    pending.push(line);
    wake?.();
  };
  let finished = false;
  const source = makePostgresLegacySource({ connectionString: request.database_url });
  const backfill = makeBackfillService({ ...deps, source });
  const work = (
    request.rollback
      ? backfill.rollback({ dryRun: request.dry_run, tenant: request.tenant }).then((rollback): LocalBackfillLine => ({ rollback }))
      : backfill
          .run({ dryRun: request.dry_run, tenant: request.tenant, onProgress: (progress) => push({ progress }) })
          .then((report): LocalBackfillLine => ({ report }))
  )
    .then(
      (line) => push(line),
      (error: unknown) => {
        deps.logger.error('backfill failed', { error });
        const code = error instanceof BackfillUsageError ? error.code : 'backfill_failed';
        push({ error: { code, message: error instanceof Error ? error.message : String(error) } });
      },
    )
    .finally(async () => {
      await source.close().catch(() => {});
      finished = true;
      wake?.();
    });
  while (!finished || pending.length > 0) {
    if (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    while (pending.length > 0) yield pending.shift()!;
  }
  await work;
}
