import * as z from 'zod';
import { SEVERITIES, type Severity } from '../../lib/severity.ts';

/** The longest SLA a tenant may set: ten years is "no SLA" said another way, and keeps dates in range. */
export const SLA_MAX_DAYS = 3650;
const DAY_MS = 86_400_000;

const days = z
  .number({
    error: (issue) => (issue.input === undefined ? 'is required (days, or null for no due date)' : 'must be a number of days or null'),
  })
  .int('must be a whole number of days')
  .min(1, 'must be at least 1 day')
  .max(SLA_MAX_DAYS, `must be at most ${SLA_MAX_DAYS} days`)
  .nullable();

/**
 * PUT /api/settings/sla: days to fix an issue, per severity (DESIGN §15); null for a severity
 * without a due date. Every severity is named, so a PUT never leaves one as it was by accident.
 */
export const SlaSettings = z.lazy(() =>
  z.strictObject(Object.fromEntries(SEVERITIES.map((severity) => [severity, days])) as Record<Severity, typeof days>),
);
export type SlaSettings = z.infer<typeof SlaSettings>;

/** GET /api/settings/sla: the days, and who set them when (null until the tenant sets an SLA). */
export const SlaView = z.lazy(() => SlaSettings.and(z.object({ updated_at: z.string().nullable(), updated_by: z.string().nullable() })));
export type SlaView = z.infer<typeof SlaView>;

/** A tenant that never set an SLA: no issue has a due date. */
export const NO_SLA: SlaView = { critical: null, high: null, medium: null, low: null, info: null, updated_at: null, updated_by: null };

/**
 * When an issue is due: its first sighting plus its severity's days. Computed on every read from
 * the tenant's SLA as it is now, so a changed SLA (or a changed severity) moves every due date at
 * once without rewriting an issue. A reopened issue keeps its due date: the problem was known
 * since it was first seen.
 */
export function dueAt(issue: { severity: Severity; first_seen_at: string }, sla: Pick<SlaSettings, Severity>): string | null {
  const allowed = sla[issue.severity];
  if (allowed === null) return null;
  return new Date(Date.parse(issue.first_seen_at) + allowed * DAY_MS).toISOString();
}

/** Overdue: open (as a reader sees it) and past its due date. */
export function isOverdue(status: string, due: string | null, now: string): boolean {
  return status === 'open' && due !== null && due < now;
}

/**
 * The overdue filter as first-seen bounds: an open issue of severity S is overdue when it was
 * first seen before `bounds[S]`; a severity without days is never overdue (absent here).
 */
export function overdueBounds(sla: Pick<SlaSettings, Severity>, now: string): Partial<Record<Severity, string>> {
  const bounds: Partial<Record<Severity, string>> = {};
  for (const severity of SEVERITIES) {
    const allowed = sla[severity];
    if (allowed !== null) bounds[severity] = new Date(Date.parse(now) - allowed * DAY_MS).toISOString();
  }
  return bounds;
}
