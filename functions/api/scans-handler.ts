import * as z from 'zod';
import { Artifact, CreateArtifactRequest, CreatedArtifact } from '../../shared/domain/artifact.ts';
import { FindingList, FindingListQuery } from '../../shared/domain/finding.ts';
import { ArtifactId, ScanId, ScheduleId } from '../../shared/domain/ids.ts';
import { ManualScanRequest, ScanJob, ScanList, ScanListQuery } from '../../shared/domain/scan-job.ts';
import { ScanLogView } from '../../shared/domain/scan-log.ts';
import { Schedule } from '../../shared/domain/schedule.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import { makeApiHandler } from '../../shared/http/make-api-handler.ts';
import { pageCursors } from '../../shared/http/page-cursor.ts';
import { declareRoutes } from '../../shared/http/routes.ts';
import type { ExportStore } from '../../shared/ports/export-store.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { ArtifactService } from '../../shared/services/artifact-service.ts';
import type { IssueService } from '../../shared/services/issue-service.ts';
import type { ScanService } from '../../shared/services/scan-service.ts';
import { issueRoutes } from './issue-routes.ts';

export interface ScansHandlerDeps {
  scans: ScanService;
  artifacts: ArtifactService;
  issues: IssueService;
  /** Where an export too large for one buffered answer goes (AWS); the local server streams instead. */
  exports?: ExportStore;
  logger: Logger;
  allowedOrigins: string[];
}

/** Run now, manual scans, the scan and finding reads, and the artifacts scans read (DESIGN §3). */
export const scanRoutes = declareRoutes<ScansHandlerDeps>('scans', (route) => [
  route({
    method: 'POST',
    path: '/api/scans/schedules/{id}/run/',
    role: 'operator',
    summary: 'Run now: a ScanJob is created and queued; enabled is unchanged',
    id: { schema: ScheduleId, noun: 'schedule' },
    success: {
      status: 202,
      schema: z.lazy(() => z.object({ scan: ScanJob, schedule: Schedule })),
      description: 'the queued scan and the schedule',
    },
    errors: [401, 403, 404, 503],
    handle: async ({ identity, id }, { scans }) => ({ status: 202, body: await scans.runNow(identity.tenant, id) }),
  }),
  route({
    method: 'POST',
    path: '/api/scans/',
    role: 'operator',
    summary: 'Queue a manual scan',
    body: ManualScanRequest,
    success: { status: 202, schema: ScanJob, description: 'the queued scan; Location names it' },
    errors: [400, 401, 403, 413, 415, 503],
    handle: async ({ identity, body }, { scans }) => {
      const scan = await scans.createManual(identity.tenant, body);
      return { status: 202, body: scan, headers: { location: `/api/scans/${scan.id}/` } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/scans/',
    role: 'viewer',
    summary: 'List scans, newest first, as summaries (no checks or errors: get the scan for them)',
    query: ScanListQuery,
    success: { status: 200, schema: ScanList, description: 'a page of scans' },
    errors: [400, 401, 403],
    handle: async ({ identity, query, cursorKeys }, { scans }) => {
      const { scan_type, status, schedule_id, source_type, target, search, limit, cursor } = query;
      const cursors = pageCursors(cursorKeys, {
        listing: 'scans',
        filters: { scan_type, status, schedule_id, source_type, target, search },
      });
      const page = await scans.listScans(
        identity.tenant,
        { scanType: scan_type, status, scheduleId: schedule_id, sourceType: source_type, target, search },
        limit,
        cursors.open(cursor),
      );
      return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/scans/{id}/',
    role: 'viewer',
    summary: 'Get a scan',
    id: { schema: ScanId, noun: 'scan' },
    success: { status: 200, schema: ScanJob, description: 'the scan' },
    errors: [401, 403, 404],
    handle: async ({ identity, id }, { scans }) => ({ status: 200, body: await scans.getScan(identity.tenant, id) }),
  }),
  route({
    method: 'GET',
    path: '/api/scans/{id}/log/',
    role: 'viewer',
    summary: "A scan's log lines, oldest first (at most 1,000); readable is false where the deployment cannot read them back",
    id: { schema: ScanId, noun: 'scan' },
    success: { status: 200, schema: ScanLogView, description: 'the log lines and where the full log is' },
    errors: [401, 403, 404],
    handle: async ({ identity, id }, { scans }) => ({ status: 200, body: await scans.getScanLog(identity.tenant, id) }),
  }),
  route({
    method: 'GET',
    path: '/api/scans/{id}/sbom/',
    role: 'viewer',
    summary: "The scan's SBOM, a CycloneDX 1.6 JSON document (sbom scans; 404 for a scan without one, or once it expired after 30 days)",
    id: { schema: ScanId, noun: 'scan' },
    success: { status: 200, description: 'application/vnd.cyclonedx+json' },
    errors: [401, 403, 404, 413],
    handle: async ({ identity, id }, { scans, artifacts }) => {
      const scan = await scans.getScan(identity.tenant, id);
      const output = scan.outputs?.find((item) => item.purpose === 'sbom');
      const stored = output ? await artifacts.content(identity.tenant, output.artifact_id) : null;
      if (!stored) throw new NotFoundError(`scan ${id} has no SBOM`);
      const text = stored.bytes.toString('utf8');
      return {
        status: 200,
        // A stream, so that Lambda's buffered answer refuses a document over its 5.5 MB with 413 (npm start streams it).
        stream: {
          chunks: (async function* () {
            yield text;
          })(),
          tooLarge: 'the SBOM is over 5.5 MB: this deployment cannot answer it in one response',
        },
        headers: { 'content-type': stored.artifact.content_type, 'content-disposition': `attachment; filename="${scan.id}.cdx.json"` },
      };
    },
  }),
  route({
    method: 'GET',
    path: '/api/findings/',
    role: 'viewer',
    summary: 'List findings, newest first',
    query: FindingListQuery,
    success: { status: 200, schema: FindingList, description: 'a page of findings' },
    errors: [400, 401, 403],
    handle: async ({ identity, query, cursorKeys }, { scans }) => {
      const { scan_id, rule_id, severity, target, limit, cursor } = query;
      const cursors = pageCursors(cursorKeys, { listing: 'findings', filters: { scan_id, rule_id, severity, target } });
      const page = await scans.listFindings(
        identity.tenant,
        { scanId: scan_id, ruleId: rule_id, severity, target },
        limit,
        cursors.open(cursor),
      );
      return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
    },
  }),
  route({
    method: 'POST',
    path: '/api/artifacts/',
    role: 'operator',
    summary: 'Announce a file (DMARC report or .eml) and get where to PUT it',
    body: CreateArtifactRequest,
    success: {
      status: 201,
      schema: CreatedArtifact,
      description: 'the pending artifact with its upload instructions (valid 15 minutes); Location names it',
    },
    errors: [400, 401, 403, 413, 415],
    handle: async ({ identity, body }, { artifacts }) => {
      const artifact = await artifacts.create(identity.tenant, body);
      return { status: 201, body: artifact, headers: { location: `/api/artifacts/${artifact.id}/` } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/artifacts/{id}/',
    role: 'viewer',
    summary: 'Get an artifact: pending until its bytes arrived and passed the checks, then ready or rejected with a reason',
    id: { schema: ArtifactId, noun: 'artifact' },
    success: { status: 200, schema: Artifact, description: 'the artifact' },
    errors: [401, 403, 404],
    handle: async ({ identity, id }, { artifacts }) => ({ status: 200, body: await artifacts.get(identity.tenant, id) }),
  }),
  ...issueRoutes(route),
]);

/** `streaming`: the server sends the CSV export as it is made (npm start); Lambda's buffered answer holds at most 5.5 MB. */
export function makeScansHandler(deps: ScansHandlerDeps, { streaming = false }: { streaming?: boolean } = {}) {
  return makeApiHandler({ routes: scanRoutes, deps, logger: deps.logger, allowedOrigins: deps.allowedOrigins, streaming });
}
