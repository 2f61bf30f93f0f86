import { ScanId } from '../../shared/domain/ids.ts';
import {
  IssueDetail,
  IssueId,
  IssueList,
  IssueListQuery,
  IssueRuleList,
  IssueStatusChange,
  IssueView,
  ScanChangeList,
} from '../../shared/domain/issue.ts';
import { SlaSettings, SlaView } from '../../shared/domain/sla.ts';
import { pageCursors } from '../../shared/http/page-cursor.ts';
import type { Route, RouteFactory } from '../../shared/http/routes.ts';
import type { ExportStore } from '../../shared/ports/export-store.ts';
import type { IssueService } from '../../shared/services/issue-service.ts';

const filtersOf = (query: IssueListQuery) => ({
  status: query.status,
  severity: query.severity,
  scanType: query.scan_type,
  target: query.target,
  ruleId: query.rule_id,
  scheduleId: query.schedule_id,
  overdue: query.overdue,
});

const CSV_NAME = 'issues.csv';
const CSV_TYPE = 'text/csv; charset=utf-8';

/**
 * The issue routes of DESIGN §15, served by the scans function. `exports` (AWS) stores a CSV
 * export too large for one buffered answer; without it such an export answers 413.
 */
export function issueRoutes<D extends { issues: IssueService; exports?: ExportStore }>(route: RouteFactory<D>): Route<D>[] {
  return [
    route({
      method: 'GET',
      path: '/api/issues/',
      role: 'viewer',
      summary: 'List issues by severity, then last seen; a page may be short while next_cursor says more follow',
      query: IssueListQuery,
      success: { status: 200, schema: IssueList, description: 'a page of issues' },
      errors: [400, 401, 403],
      handle: async ({ identity, query, cursorKeys }, { issues }) => {
        const filters = filtersOf(query);
        const cursors = pageCursors(cursorKeys, { listing: 'issues', filters: { ...query, limit: undefined, cursor: undefined } });
        const page = await issues.list(identity.tenant, filters, query.limit, cursors.open(query.cursor));
        return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
      },
    }),
    route({
      method: 'GET',
      path: '/api/issues/export.csv',
      role: 'viewer',
      summary:
        'The filtered issues as CSV, every page in listing order (cells a spreadsheet would run as formulas are neutralised); ' +
        'streamed by npm start; in AWS the body itself up to 5.5 MB, beyond that 303 to the file in S3',
      query: IssueListQuery,
      success: { status: 200, description: 'text/csv' },
      redirect: {
        status: 303,
        description: 'In AWS, an export over 5.5 MB: Location is a presigned URL, valid 5 minutes, to GET the same CSV (stored one day)',
      },
      errors: [400, 401, 403, 413],
      handle: async ({ identity, query }, { issues, exports }) => ({
        status: 200,
        stream: {
          chunks: issues.exportCsv(identity.tenant, filtersOf(query)),
          tooLarge: 'the export is over 5.5 MB: narrow it with filters',
          overflow:
            exports &&
            (async (chunks) => ({
              status: 303,
              headers: { location: await exports.save(identity.tenant, chunks, { name: CSV_NAME, contentType: CSV_TYPE }) },
            })),
        },
        headers: { 'content-type': CSV_TYPE, 'content-disposition': `attachment; filename="${CSV_NAME}"` },
      }),
    }),
    route({
      method: 'GET',
      path: '/api/issues/rules/',
      role: 'viewer',
      summary: "The catalogue rules the tenant has issues of, whatever their status (a rule picker's choices)",
      success: { status: 200, schema: IssueRuleList, description: 'the rules, by id' },
      errors: [401, 403],
      handle: async ({ identity }, { issues }) => ({ status: 200, body: { items: await issues.rules(identity.tenant) } }),
    }),
    route({
      method: 'GET',
      path: '/api/issues/{id}/',
      role: 'viewer',
      summary: 'One issue with its newest occurrences',
      id: { schema: IssueId, noun: 'issue' },
      success: { status: 200, schema: IssueDetail, description: 'the issue' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { issues }) => ({ status: 200, body: await issues.get(identity.tenant, id) }),
    }),
    route({
      method: 'PATCH',
      path: '/api/issues/{id}/',
      role: 'operator',
      summary: 'Triage an issue: accept the risk (until a date), mark a false positive, or open it again',
      id: { schema: IssueId, noun: 'issue' },
      body: IssueStatusChange,
      success: { status: 200, schema: IssueView, description: 'the issue as changed' },
      errors: [400, 401, 403, 404, 409, 413, 415],
      handle: async ({ identity, id, body }, { issues }) => ({
        status: 200,
        body: await issues.triage(identity.tenant, id, body, identity.sub),
      }),
    }),
    route({
      method: 'GET',
      path: '/api/settings/sla',
      role: 'viewer',
      summary: "The tenant's per-severity SLA: days from an issue's first sighting to its due date (null: no due date)",
      success: { status: 200, schema: SlaView, description: 'the SLA; every severity null until the tenant sets one' },
      errors: [401, 403],
      handle: async ({ identity }, { issues }) => ({ status: 200, body: await issues.getSla(identity.tenant) }),
    }),
    route({
      method: 'PUT',
      path: '/api/settings/sla',
      role: 'admin',
      summary: "Set the tenant's SLA, every severity at once; every issue's due date follows at once",
      body: SlaSettings,
      success: { status: 200, schema: SlaView, description: 'the SLA as stored' },
      errors: [400, 401, 403, 413, 415],
      handle: async ({ identity, body }, { issues }) => ({ status: 200, body: await issues.setSla(identity.tenant, body, identity.sub) }),
    }),
    route({
      method: 'GET',
      path: '/api/scans/{id}/changes/',
      role: 'viewer',
      summary: 'What a finished scan changed: the issues it opened, reopened and resolved',
      id: { schema: ScanId, noun: 'scan' },
      success: { status: 200, schema: ScanChangeList, description: 'the changes' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { issues }) => ({ status: 200, body: await issues.changesOf(identity.tenant, id) }),
    }),
  ];
}
