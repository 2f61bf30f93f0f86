import { ScheduleId } from '../../shared/domain/ids.ts';
import {
  READ_ONLY_SCHEDULE_FIELDS,
  Schedule,
  ScheduleCreateRequest,
  ScheduleList,
  ScheduleListQuery,
  SchedulePatchRequest,
} from '../../shared/domain/schedule.ts';
import { makeApiHandler } from '../../shared/http/make-api-handler.ts';
import { pageCursors } from '../../shared/http/page-cursor.ts';
import { declareRoutes } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import type { CredentialService } from '../../shared/services/credential-service.ts';
import type { NotificationService } from '../../shared/services/notification-service.ts';
import type { ScheduleService } from '../../shared/services/schedule-service.ts';
import { credentialRoutes } from './credential-routes.ts';
import { notificationRoutes } from './notification-routes.ts';

export interface SchedulesHandlerDeps {
  schedules: ScheduleService;
  notifications: NotificationService;
  credentials: CredentialService;
  logger: Logger;
  allowedOrigins: string[];
}

const base = '/api/scans/schedules';
const scheduleId = { schema: ScheduleId, noun: 'schedule' };

/** The tenant's configuration: the schedule routes of DESIGN §3 (all but run/, which comes with scans), the notification rules of §15 and the credentials of §16. */
export const scheduleRoutes = declareRoutes<SchedulesHandlerDeps>('schedules', (route) => [
  route({
    method: 'GET',
    path: `${base}/`,
    role: 'viewer',
    summary: 'List schedules, newest first',
    query: ScheduleListQuery,
    success: { status: 200, schema: ScheduleList, description: 'a page of schedules' },
    errors: [400, 401, 403],
    handle: async ({ identity, query, cursorKeys }, { schedules }) => {
      const { scan_type, enabled, limit, cursor } = query;
      const cursors = pageCursors(cursorKeys, { listing: 'schedules', filters: { scan_type, enabled } });
      const page = await schedules.list(identity.tenant, { scanType: scan_type, enabled }, limit, cursors.open(cursor));
      return { status: 200, body: { items: page.items, next_cursor: cursors.seal(page.nextCursor) } };
    },
  }),
  route({
    method: 'POST',
    path: `${base}/`,
    role: 'operator',
    summary: 'Create a schedule (and its trigger when enabled)',
    body: ScheduleCreateRequest,
    readOnly: READ_ONLY_SCHEDULE_FIELDS,
    success: { status: 201, schema: Schedule, description: 'the schedule; Location names it' },
    errors: [400, 401, 403, 409, 413, 415, 503],
    handle: async ({ identity, body }, { schedules }) => {
      const created = await schedules.create(identity.tenant, body);
      return { status: 201, body: created, headers: { location: `${base}/${created.id}/` } };
    },
  }),
  route({
    method: 'GET',
    path: `${base}/{id}/`,
    role: 'viewer',
    summary: 'Get a schedule',
    id: scheduleId,
    success: { status: 200, schema: Schedule, description: 'the schedule' },
    errors: [401, 403, 404],
    handle: async ({ identity, id }, { schedules }) => ({ status: 200, body: await schedules.get(identity.tenant, id) }),
  }),
  route({
    method: 'PATCH',
    path: `${base}/{id}/`,
    role: 'operator',
    summary: 'Change any subset of the writable fields; the trigger follows',
    id: scheduleId,
    body: SchedulePatchRequest,
    readOnly: READ_ONLY_SCHEDULE_FIELDS,
    success: { status: 200, schema: Schedule, description: 'the schedule' },
    errors: [400, 401, 403, 404, 409, 413, 415, 503],
    handle: async ({ identity, id, body }, { schedules }) => ({ status: 200, body: await schedules.update(identity.tenant, id, body) }),
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}/`,
    role: 'admin',
    summary: 'Delete a schedule and its trigger; findings stay',
    id: scheduleId,
    success: { status: 204, description: 'deleted' },
    errors: [401, 403, 404, 409, 503],
    handle: async ({ identity, id }, { schedules }) => {
      await schedules.remove(identity.tenant, id);
      return { status: 204 };
    },
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/toggle/`,
    role: 'operator',
    summary: 'Flip enabled: remove or provision the trigger',
    id: scheduleId,
    success: { status: 200, schema: Schedule, description: 'the schedule' },
    errors: [401, 403, 404, 409, 503],
    handle: async ({ identity, id }, { schedules }) => ({ status: 200, body: await schedules.toggle(identity.tenant, id) }),
  }),
  ...notificationRoutes(route),
  ...credentialRoutes(route),
]);

export function makeSchedulesHandler(deps: SchedulesHandlerDeps) {
  return makeApiHandler({ routes: scheduleRoutes, deps, logger: deps.logger, allowedOrigins: deps.allowedOrigins });
}
