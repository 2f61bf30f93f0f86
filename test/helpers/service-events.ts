import { eventIdOf, type NotificationRuleRecord, type ServiceEvent } from '../../shared/domain/notification.ts';

/** A `scan.finished` event of tenant acme for `scan_<n>`; `target` lets a test make it as large as it needs. */
export function scanFinishedEvent(n: number, target = 'example.com'): Extract<ServiceEvent, { type: 'scan.finished' }> {
  return {
    id: eventIdOf('scan.finished', `scan_${n}`),
    type: 'scan.finished',
    tenant: 'acme',
    occurred_at: '2026-03-02T10:00:00.000Z',
    data: {
      scan_id: `scan_${n}`,
      scan_type: 'email_security',
      target,
      schedule_id: null,
      status: 'succeeded',
      changes: { new: 0, resolved: 0, reopened: 0, unchanged: 0 },
      summary: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
      link: `/scans/scan_${n}`,
    },
  };
}

/** A stored notification rule of tenant acme: an enabled webhook for `scan.finished`, unless `overrides` say otherwise. */
export function notificationRule(id: string, overrides: Partial<NotificationRuleRecord> = {}): NotificationRuleRecord {
  return {
    id,
    tenant: 'acme',
    name: id,
    kind: 'webhook',
    url: 'https://hooks.example.com/scan',
    address: null,
    events: ['scan.finished'],
    min_severity: 'info',
    scan_types: null,
    schedule_ids: null,
    delivery: 'each',
    enabled: true,
    created_at: '2026-03-01T00:00:00.000Z',
    updated_at: '2026-03-01T00:00:00.000Z',
    version: 1,
    secret: 'c2VjcmV0',
    ...overrides,
  };
}

/** An email rule of tenant acme for `scan.finished`. */
export const emailRule = (id: string): NotificationRuleRecord =>
  notificationRule(id, { kind: 'email', url: null, address: 'secops@example.com', secret: null });
