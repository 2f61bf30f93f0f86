import { eventIdOf, type ServiceEvent } from '../../shared/domain/notification.ts';

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
    },
  };
}
