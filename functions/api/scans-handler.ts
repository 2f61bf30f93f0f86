import { NotFoundError } from '../../shared/domain/errors.ts';
import { FindingListQuery } from '../../shared/domain/finding.ts';
import { ManualScanRequest, ScanListQuery } from '../../shared/domain/scan-job.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { parseBody, parseQuery } from '../../shared/http/parse.ts';
import { routeKeyOf, routesOf } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { ScanService } from '../../shared/services/scan-service.ts';

export interface ScansHandlerDeps {
  scans: ScanService;
  logger: Logger;
  allowedOrigins: string[];
}

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const SCHEDULE_ID = new RegExp(`^sch_${ULID}$`);
const SCAN_ID = new RegExp(`^scan_${ULID}$`);

/** A malformed id cannot exist in any tenant: answer 404 like any other missing resource. */
function idParam(params: Record<string, string>, pattern: RegExp, kind: string): string {
  const id = params.id ?? '';
  if (!pattern.test(id)) throw new NotFoundError(`${kind} ${id} not found`);
  return id;
}

/** Run now, manual scans, and the scan and finding reads (DESIGN §3). */
export function makeScansHandler({ scans, logger, allowedOrigins }: ScansHandlerDeps) {
  const operations: Record<string, Operation> = {
    [routeKeyOf('POST', '/api/scans/schedules/{id}/run/')]: async ({ identity, params }) => ({
      status: 202,
      body: await scans.runNow(identity.tenant, idParam(params, SCHEDULE_ID, 'schedule')),
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
      body: await scans.getScan(identity.tenant, idParam(params, SCAN_ID, 'scan')),
    }),
    [routeKeyOf('GET', '/api/findings/')]: async ({ identity, query }) => {
      const { scan_id, rule_id, severity, target, limit, cursor } = parseQuery(FindingListQuery, query);
      const page = await scans.listFindings(identity.tenant, { scanId: scan_id, ruleId: rule_id, severity, target }, limit, cursor);
      return { status: 200, body: { items: page.items, next_cursor: page.nextCursor } };
    },
  };
  return makeApiHandler({ routes: routesOf('scans'), operations, logger, allowedOrigins });
}
