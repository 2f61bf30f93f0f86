import { NotFoundError } from '../../shared/domain/errors.ts';
import { READ_ONLY_SCHEDULE_FIELDS, ScheduleCreateRequest, ScheduleListQuery, SchedulePatchRequest } from '../../shared/domain/schedule.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { parseBody, parseQuery } from '../../shared/http/parse.ts';
import { routeKeyOf, routesOf } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { ScheduleService } from '../../shared/services/schedule-service.ts';

export interface SchedulesHandlerDeps {
  schedules: ScheduleService;
  logger: Logger;
  allowedOrigins: string[];
}

const ID = /^sch_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A malformed id cannot exist in any tenant: answer 404 like any other missing schedule. */
function scheduleId(params: Record<string, string>): string {
  const id = params.id ?? '';
  if (!ID.test(id)) throw new NotFoundError(`schedule ${id} not found`);
  return id;
}

/** The schedule routes of DESIGN §3 (all but run/, which comes with scans). */
export function makeSchedulesHandler({ schedules, logger, allowedOrigins }: SchedulesHandlerDeps) {
  const base = '/api/scans/schedules';
  const operations: Record<string, Operation> = {
    [routeKeyOf('GET', `${base}/`)]: async ({ identity, query }) => {
      const { scan_type, enabled, limit, cursor } = parseQuery(ScheduleListQuery, query);
      const page = await schedules.list(identity.tenant, { scanType: scan_type, enabled }, limit, cursor);
      return { status: 200, body: { items: page.items, next_cursor: page.nextCursor } };
    },
    [routeKeyOf('POST', `${base}/`)]: async ({ identity, body }) => {
      const input = parseBody(ScheduleCreateRequest, body, READ_ONLY_SCHEDULE_FIELDS);
      const created = await schedules.create(identity.tenant, input);
      return { status: 201, body: created, headers: { location: `${base}/${created.id}/` } };
    },
    [routeKeyOf('GET', `${base}/{id}/`)]: async ({ identity, params }) => ({
      status: 200,
      body: await schedules.get(identity.tenant, scheduleId(params)),
    }),
    [routeKeyOf('PATCH', `${base}/{id}/`)]: async ({ identity, params, body }) => {
      const id = scheduleId(params);
      const patch = parseBody(SchedulePatchRequest, body, READ_ONLY_SCHEDULE_FIELDS);
      return { status: 200, body: await schedules.update(identity.tenant, id, patch) };
    },
    [routeKeyOf('DELETE', `${base}/{id}/`)]: async ({ identity, params }) => {
      await schedules.remove(identity.tenant, scheduleId(params));
      return { status: 204 };
    },
    [routeKeyOf('POST', `${base}/{id}/toggle/`)]: async ({ identity, params }) => ({
      status: 200,
      body: await schedules.toggle(identity.tenant, scheduleId(params)),
    }),
  };
  return makeApiHandler({ routes: routesOf('schedules'), operations, logger, allowedOrigins });
}
