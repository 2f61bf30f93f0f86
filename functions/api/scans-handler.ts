import { ArtifactId, ScanId, ScheduleId } from '../../shared/domain/ids.ts';
import { CreateArtifactRequest } from '../../shared/domain/artifact.ts';
import { FindingListQuery } from '../../shared/domain/finding.ts';
import { ManualScanRequest, ScanListQuery } from '../../shared/domain/scan-job.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { pageCursors } from '../../shared/http/page-cursor.ts';
import { parseBody, parseQuery } from '../../shared/http/parse.ts';
import { pathId } from '../../shared/http/path-id.ts';
import { routeKeyOf, routesOf } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { ArtifactService } from '../../shared/services/artifact-service.ts';
import type { ScanService } from '../../shared/services/scan-service.ts';

export interface ScansHandlerDeps {
  scans: ScanService;
  artifacts: ArtifactService;
  logger: Logger;
  allowedOrigins: string[];
}

/** Run now, manual scans, the scan and finding reads, and the artifacts scans read (DESIGN §3). */
export function makeScansHandler({ scans, artifacts, logger, allowedOrigins }: ScansHandlerDeps) {
  const operations: Record<string, Operation> = {
    [routeKeyOf('POST', '/api/scans/schedules/{id}/run/')]: async ({ identity, params }) => ({
      status: 202,
      body: await scans.runNow(identity.tenant, pathId(params, ScheduleId, 'schedule')),
    }),
    [routeKeyOf('POST', '/api/scans/')]: async ({ identity, body }) => {
      const scan = await scans.createManual(identity.tenant, parseBody(ManualScanRequest, body));
      return { status: 202, body: scan, headers: { location: `/api/scans/${scan.id}/` } };
    },
    [routeKeyOf('GET', '/api/scans/')]: async ({ identity, query, cursorKeys }) => {
      const { scan_type, status, schedule_id, source_type, limit, cursor } = parseQuery(ScanListQuery, query);
      const cursors = pageCursors(cursorKeys, { listing: 'scans', filters: { scan_type, status, schedule_id, source_type } });
      const page = await scans.listScans(
        identity.tenant,
        { scanType: scan_type, status, scheduleId: schedule_id, sourceType: source_type },
        limit,
        cursors.open(cursor),
      );
      return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
    },
    [routeKeyOf('GET', '/api/scans/{id}/')]: async ({ identity, params }) => ({
      status: 200,
      body: await scans.getScan(identity.tenant, pathId(params, ScanId, 'scan')),
    }),
    [routeKeyOf('GET', '/api/findings/')]: async ({ identity, query, cursorKeys }) => {
      const { scan_id, rule_id, severity, target, limit, cursor } = parseQuery(FindingListQuery, query);
      const cursors = pageCursors(cursorKeys, { listing: 'findings', filters: { scan_id, rule_id, severity, target } });
      const page = await scans.listFindings(
        identity.tenant,
        { scanId: scan_id, ruleId: rule_id, severity, target },
        limit,
        cursors.open(cursor),
      );
      return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
    },
    [routeKeyOf('POST', '/api/artifacts/')]: async ({ identity, body }) => {
      const artifact = await artifacts.create(identity.tenant, parseBody(CreateArtifactRequest, body));
      return { status: 201, body: artifact, headers: { location: `/api/artifacts/${artifact.id}/` } };
    },
    [routeKeyOf('GET', '/api/artifacts/{id}/')]: async ({ identity, params }) => ({
      status: 200,
      body: await artifacts.get(identity.tenant, pathId(params, ArtifactId, 'artifact')),
    }),
  };
  return makeApiHandler({ routes: routesOf('scans'), operations, logger, allowedOrigins });
}
