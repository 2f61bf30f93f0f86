import type { ScanServiceAdapters } from './compose/adapters.ts';
import { composeDispatchService } from './compose/dispatch-service.ts';
import { composeReconcileService } from './compose/reconcile-service.ts';
import { composeScanService } from './compose/scan-service.ts';
import { composeScheduleService } from './compose/schedule-service.ts';

export type { ScanServiceAdapters } from './compose/adapters.ts';

/**
 * The one wiring of the services: which repository each service gets, the engine inside dispatch.
 * The local runtime builds all four here; each Lambda composition root (functions/) calls the
 * composer of the one service it runs (`compose/*.ts`), so AWS and `npm start` cannot drift.
 * One composer per module because a bundle holds every module its entry imports, with all their
 * top-level work (zod schemas, the public suffix list): importing this file put all four services
 * in every function's bundle and cold start.
 */
export function composeScanServices(adapters: ScanServiceAdapters) {
  return {
    scheduleService: (extra: Parameters<typeof composeScheduleService>[1]) => composeScheduleService(adapters, extra),
    scanService: (extra: Parameters<typeof composeScanService>[1]) => composeScanService(adapters, extra),
    dispatchService: (extra: Parameters<typeof composeDispatchService>[1]) => composeDispatchService(adapters, extra),
    reconcileService: (extra: Parameters<typeof composeReconcileService>[1]) => composeReconcileService(adapters, extra),
  };
}
