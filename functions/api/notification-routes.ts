import { NotificationRuleId } from '../../shared/domain/ids.ts';
import {
  CreatedNotificationRule,
  CreateNotificationRule,
  NotificationRule,
  NotificationRuleList,
  NotificationTestResult,
  READ_ONLY_NOTIFICATION_FIELDS,
  UpdateNotificationRule,
} from '../../shared/domain/notification.ts';
import type { Route, RouteFactory } from '../../shared/http/routes.ts';
import type { NotificationService } from '../../shared/services/notification-service.ts';

const base = '/api/notifications';
const ruleId = { schema: NotificationRuleId, noun: 'notification rule' };

/** The notification-rule routes of DESIGN §15 (admin), served by the schedules function: tenant configuration. */
export function notificationRoutes<D extends { notifications: NotificationService }>(route: RouteFactory<D>): Route<D>[] {
  return [
    route({
      method: 'GET',
      path: `${base}/`,
      role: 'admin',
      summary: 'List the notification rules (at most 50), oldest first; no secret is ever listed',
      success: { status: 200, schema: NotificationRuleList, description: 'every rule of the tenant' },
      errors: [401, 403],
      handle: async ({ identity }, { notifications }) => ({ status: 200, body: { items: await notifications.list(identity.tenant) } }),
    }),
    route({
      method: 'POST',
      path: `${base}/`,
      role: 'admin',
      summary: "Create a notification rule; a webhook's signing secret is in this answer only",
      body: CreateNotificationRule,
      readOnly: READ_ONLY_NOTIFICATION_FIELDS,
      success: { status: 201, schema: CreatedNotificationRule, description: 'the rule (with `secret` for a webhook); Location names it' },
      errors: [400, 401, 403, 409, 413, 415],
      handle: async ({ identity, body }, { notifications }) => {
        const created = await notifications.create(identity.tenant, body);
        return { status: 201, body: created, headers: { location: `${base}/${created.id}/` } };
      },
    }),
    route({
      method: 'GET',
      path: `${base}/{id}/`,
      role: 'admin',
      summary: 'Get a notification rule (without its secret)',
      id: ruleId,
      success: { status: 200, schema: NotificationRule, description: 'the rule' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { notifications }) => ({ status: 200, body: await notifications.get(identity.tenant, id) }),
    }),
    route({
      method: 'PATCH',
      path: `${base}/{id}/`,
      role: 'admin',
      summary: 'Change any subset of the writable fields (not the kind; null removes a scan_types or schedule_ids filter)',
      id: ruleId,
      body: UpdateNotificationRule,
      readOnly: [...READ_ONLY_NOTIFICATION_FIELDS, 'kind'],
      success: { status: 200, schema: NotificationRule, description: 'the rule' },
      errors: [400, 401, 403, 404, 409, 413, 415],
      handle: async ({ identity, id, body }, { notifications }) => ({
        status: 200,
        body: await notifications.update(identity.tenant, id, body),
      }),
    }),
    route({
      method: 'DELETE',
      path: `${base}/{id}/`,
      role: 'admin',
      summary: 'Delete a notification rule; deliveries of it still queued are dropped',
      id: ruleId,
      success: { status: 204, description: 'deleted' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { notifications }) => {
        await notifications.delete(identity.tenant, id);
        return { status: 204 };
      },
    }),
    route({
      method: 'POST',
      path: `${base}/{id}/test/`,
      role: 'admin',
      summary: "Send one notification.test event to the rule's endpoint now (no retry) and say what happened",
      id: ruleId,
      success: { status: 200, schema: NotificationTestResult, description: 'the outcome: delivered, event_id, status_code, error' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { notifications }) => ({ status: 200, body: await notifications.test(identity.tenant, id) }),
    }),
  ];
}
