import type { Tracked } from './issue-tracking.ts';
import { issueOnWire, type IssueRecord } from './issue.ts';
import { eventIdOf, type ServiceEvent } from './notification.ts';
import type { ScanJobRecord } from './scan-job.ts';

const ISSUE_EVENT = { new: 'issue.opened', reopened: 'issue.reopened', resolved: 'issue.resolved' } as const;

/**
 * The events of one finished scan (DESIGN §15): `scan.finished`, then one issue event per issue it
 * opened, reopened or resolved. Ids are derived from (type, scan, issue), so a redelivered scan
 * publishes the same ids.
 */
export function scanEvents(job: ScanJobRecord, tracked: Tracked, issues: ReadonlyMap<string, IssueRecord>, at: string): ServiceEvent[] {
  const events: ServiceEvent[] = [
    {
      id: eventIdOf('scan.finished', job.id),
      type: 'scan.finished',
      tenant: job.tenant,
      occurred_at: at,
      data: {
        scan_id: job.id,
        scan_type: job.scan_type,
        target: job.target,
        schedule_id: job.schedule_id,
        status: job.status,
        changes: job.changes,
        summary: job.summary,
        link: `/scans/${job.id}`,
      },
    },
  ];
  for (const change of ['new', 'reopened', 'resolved'] as const) {
    for (const id of tracked.changes[change]) {
      const issue = issues.get(id);
      if (!issue) continue;
      const type = ISSUE_EVENT[change];
      events.push({
        id: eventIdOf(type, job.id, id),
        type,
        tenant: job.tenant,
        occurred_at: at,
        data: {
          scan_id: job.id,
          issue: issueOnWire(issue, at),
          subject: issue.subject,
          severity: issue.severity,
          link: `/issues/${issue.id}`,
        },
      });
    }
  }
  return events;
}
