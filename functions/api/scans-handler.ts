import { ScanId, ScheduleId } from '../../shared/domain/ids.ts';
import { FindingListQuery } from '../../shared/domain/finding.ts';
import { ManualScanRequest, ScanListQuery } from '../../shared/domain/scan-job.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { parseBody, parseQuery } from '../../shared/http/parse.ts';
import { pathId } from '../../shared/http/path-id.ts';
import { routeKeyOf, routesOf } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { ScanService } from '../../shared/services/scan-service.ts';

export interface ScansHandlerDeps {
  scans: ScanService;
  logger: Logger;
  allowedOrigins: string[];
}

/** Run now, manual scans, and the scan and finding reads (DESIGN §3). */
export function makeScansHandler({ scans, logger, allowedOrigins }: ScansHandlerDeps) {
  const operations: Record<string, Operation> = {
    [routeKeyOf('POST', '/api/scans/schedules/{id}/run/')]: async ({ identity, params }) => ({
      status: 202,
      body: await scans.runNow(identity.tenant, pathId(params, ScheduleId, 'schedule')),
    }),
    [routeKeyOf('POST', '/api/scans/')]: async ({ identity, body }) => {
      const scan = await scans.createManual(identity.tenant, parseBody(ManualScanRequest, body));
      return { status: 202, body: scan, headers: { location: `/api/scans/${scan.id}/` } };
    },
    [routeKeyOf('GET', '/api/scans/')]: async ({ identity, query }) => {
      const { scan_type, status, schedule_id, limit, cursor } = parseQuery(ScanListQuery, query);
      const page = await scans.listScans(identity.tenant, { scanType: scan_type, status, scheduleId: schedule_id }, limit, cursor);
      return { status: 200, body: { items: page.items, next_cursor: page.nextCursor } };
    },
    [routeKeyOf('GET', '/api/scans/{id}/')]: async ({ identity, params }) => ({
      status: 200,
      body: await scans.getScan(identity.tenant, pathId(params, ScanId, 'scan')),
    }),
    [routeKeyOf('GET', '/api/findings/')]: async ({ identity, query }) => {
      const { scan_id, rule_id, severity, target, limit, cursor } = parseQuery(FindingListQuery, query);
      const page = await scans.listFindings(identity.tenant, { scanId: scan_id, ruleId: rule_id, severity, target }, limit, cursor);
      return { status: 200, body: { items: page.items, next_cursor: page.nextCursor } };
    },
  };
  return makeApiHandler({ routes: routesOf('scans'), operations, logger, allowedOrigins });
}
