import { ScheduleId } from '../../shared/domain/ids.ts';
import { READ_ONLY_SCHEDULE_FIELDS, ScheduleCreateRequest, ScheduleListQuery, SchedulePatchRequest } from '../../shared/domain/schedule.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { pageCursors } from '../../shared/http/page-cursor.ts';
import { parseBody, parseQuery } from '../../shared/http/parse.ts';
import { pathId } from '../../shared/http/path-id.ts';
import { routeKeyOf, routesOf } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { ScheduleService } from '../../shared/services/schedule-service.ts';

export interface SchedulesHandlerDeps {
  schedules: ScheduleService;
  logger: Logger;
  allowedOrigins: string[];
}

/** The schedule routes of DESIGN §3 (all but run/, which comes with scans). */
export function makeSchedulesHandler({ schedules, logger, allowedOrigins }: SchedulesHandlerDeps) {
  const base = '/api/scans/schedules';
  const operations: Record<string, Operation> = {
    [routeKeyOf('GET', `${base}/`)]: async ({ identity, query, cursorKeys }) => {
      const { scan_type, enabled, limit, cursor } = parseQuery(ScheduleListQuery, query);
      const cursors = pageCursors(cursorKeys, { listing: 'schedules', filters: { scan_type, enabled } });
      const page = await schedules.list(identity.tenant, { scanType: scan_type, enabled }, limit, cursors.open(cursor));
      return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
    },
    [routeKeyOf('POST', `${base}/`)]: async ({ identity, body }) => {
      const input = parseBody(ScheduleCreateRequest, body, READ_ONLY_SCHEDULE_FIELDS);
      const created = await schedules.create(identity.tenant, input);
      return { status: 201, body: created, headers: { location: `${base}/${created.id}/` } };
    },
    [routeKeyOf('GET', `${base}/{id}/`)]: async ({ identity, params }) => ({
      status: 200,
      body: await schedules.get(identity.tenant, pathId(params, ScheduleId, 'schedule')),
    }),
    [routeKeyOf('PATCH', `${base}/{id}/`)]: async ({ identity, params, body }) => {
      const id = pathId(params, ScheduleId, 'schedule');
      const patch = parseBody(SchedulePatchRequest, body, READ_ONLY_SCHEDULE_FIELDS);
      return { status: 200, body: await schedules.update(identity.tenant, id, patch) };
    },
    [routeKeyOf('DELETE', `${base}/{id}/`)]: async ({ identity, params }) => {
      await schedules.remove(identity.tenant, pathId(params, ScheduleId, 'schedule'));
      return { status: 204 };
    },
    [routeKeyOf('POST', `${base}/{id}/toggle/`)]: async ({ identity, params }) => ({
      status: 200,
      body: await schedules.toggle(identity.tenant, pathId(params, ScheduleId, 'schedule')),
    }),
  };
  return makeApiHandler({ routes: routesOf('schedules'), operations, logger, allowedOrigins });
}
