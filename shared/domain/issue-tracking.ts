import { covers, type Coverage } from './coverage.ts';
import type { FindingRecord } from './finding.ts';
import { effectiveStatus, HISTORY_KEPT, issueIdOf, targetKey, type ChangeKind, type IssueHistoryEntry, type IssueRecord } from './issue.ts';
import type { CheckStatus, ScanJobRecord } from './scan-job.ts';

/** One check of a target's run as the tracker reads it: its status and what it examined. */
export interface TrackedCheck {
  status: CheckStatus;
  coverage?: Coverage;
}

/** A finding with where it was seen (the runner's locations; none from a runner that names none). */
export type TrackedFinding = FindingRecord & { locations?: readonly string[] };

/** What one target of one scan said, as the tracker needs it. */
export interface TargetRun {
  target: string;
  /** The runner returned a report for this target with no error at all (not partial, not failed). */
  complete: boolean;
  /** Checks by rule id; empty when the runner reports no checks (then nothing resolves). */
  checks: ReadonlyMap<string, TrackedCheck>;
  /** This target's findings of this scan. */
  findings: readonly TrackedFinding[];
}

export interface Tracked {
  /** Issues to write: created or changed by this scan. */
  writes: IssueRecord[];
  /** Issue ids by what this scan did to them. */
  changes: Record<ChangeKind, string[]>;
}

type Job = Pick<ScanJobRecord, 'id' | 'tenant' | 'scan_type' | 'schedule_id'>;

/**
 * What one scan does to the issues of its targets (DESIGN §15). A reported fingerprint is a new
 * issue, a sighting of an open one, or reopens a resolved one (accepted risks and false positives
 * keep their status and count the sighting). An open issue of a target the scan ran completely
 * resolves only when the check of its rule completed (`pass`, or `fail` on other subjects), its
 * coverage includes every place the issue was seen, and the scan did not report it: an errored,
 * skipped or absent check, a check that says nothing of what it covered, or a partial run,
 * resolves nothing. `existing` holds the target's issues of every scan type: one issue per
 * problem, whichever scan type sees it (DESIGN §15).
 *
 * Idempotent: an issue remembers the newest scan that evaluated it and what that scan did, so the
 * same scan run again (a redelivery) recounts the same change and writes nothing, and an older
 * scan finishing late changes nothing a newer one decided.
 */
export function trackIssues({
  job,
  now,
  runs,
  existing,
}: {
  job: Job;
  now: string;
  runs: readonly TargetRun[];
  existing: readonly IssueRecord[];
}): Tracked {
  const byFingerprint = new Map(existing.map((issue) => [issue.fingerprint, issue]));
  // One issue per (tenant, target, rule, subject): a finding whose fingerprint is new but whose
  // problem has an issue (the target spelt in another case, IDN or punycode) is that issue's sighting.
  const byIdentity = new Map(existing.filter((issue) => issue.subject).map((issue) => [identityOf(issue), issue]));
  const writes: IssueRecord[] = [];
  const changes: Record<ChangeKind, string[]> = { new: [], resolved: [], reopened: [], unchanged: [] };
  const reported = new Set<string>();

  for (const run of runs) {
    for (const finding of run.findings) {
      if (reported.has(finding.fingerprint)) continue;
      reported.add(finding.fingerprint);
      const issue = byFingerprint.get(finding.fingerprint) ?? (finding.subject ? byIdentity.get(identityOf(finding)) : undefined);
      if (issue && issue.fingerprint !== finding.fingerprint) {
        if (reported.has(issue.fingerprint)) continue;
        reported.add(issue.fingerprint);
      }
      if (!issue) {
        const created = newIssue(job, finding, now);
        writes.push(created);
        changes.new.push(created.id);
        continue;
      }
      if (issue.evaluated_scan_id === job.id) {
        // A redelivery of the scan that last evaluated it: the same change, nothing written.
        changes[issue.evaluated_change].push(issue.id);
        continue;
      }
      if (issue.evaluated_scan_id > job.id) {
        // An older scan finishing late: its sighting counts once, a newer scan's decisions stand.
        changes.unchanged.push(issue.id);
        if (!issue.counted_scan_ids.includes(job.id)) writes.push({ ...counted(issue, job.id), version: issue.version + 1 });
        continue;
      }
      const sighting = sightingOf(issue, job, finding, now);
      writes.push(sighting);
      changes[sighting.evaluated_change].push(issue.id);
    }
  }

  for (const run of runs) {
    if (!run.complete) continue;
    for (const issue of existing) {
      if (targetKey(issue.target) !== targetKey(run.target) || reported.has(issue.fingerprint)) continue;
      if (issue.evaluated_scan_id === job.id) {
        if (issue.evaluated_change === 'resolved') changes.resolved.push(issue.id);
        continue;
      }
      if (issue.evaluated_scan_id > job.id || effectiveStatus(issue, now) !== 'open') continue;
      const check = run.checks.get(issue.rule_id);
      if (check === undefined || (check.status !== 'pass' && check.status !== 'fail')) continue;
      if (!covers(check.coverage, issue.locations ?? [])) continue;
      writes.push({
        ...issue,
        scan_types: withScanType(issue.scan_types, job.scan_type),
        history: withEntry(issue, {
          at: now,
          by: `system: ${job.scan_type} scan ${job.id}`,
          from: 'open',
          to: 'resolved',
          reason: `check ${issue.rule_id} ${check.status === 'pass' ? 'passed' : 'ran'} over the issue's places and did not report it`,
        }),
        status: 'resolved',
        resolved_at: now,
        resolved_scan_id: job.id,
        updated_at: now,
        version: issue.version + 1,
        evaluated_scan_id: job.id,
        evaluated_change: 'resolved',
      });
      changes.resolved.push(issue.id);
    }
  }
  return { writes, changes };
}

/** What makes two issues one problem (DESIGN §15): target as compared everywhere (targetKey), rule, subject. */
export function identityOf(issue: Pick<IssueRecord, 'target' | 'rule_id' | 'subject'>): string {
  return [targetKey(issue.target), issue.rule_id, issue.subject].join('\u0000');
}

/** Locations an issue keeps: a secret in 50 files keeps 50. */
export const LOCATIONS_KEPT = 50;

function withEntry(issue: IssueRecord, entry: IssueHistoryEntry): IssueHistoryEntry[] {
  return [...(issue.history ?? []), entry].slice(-HISTORY_KEPT);
}

function withScanType(types: readonly IssueRecord['scan_type'][] | undefined, type: IssueRecord['scan_type']): IssueRecord['scan_type'][] {
  const known = types ?? [];
  return known.includes(type) ? [...known] : [...known, type];
}

function newIssue(job: Job, finding: TrackedFinding, now: string): IssueRecord {
  return {
    id: issueIdOf(finding.fingerprint),
    tenant: job.tenant,
    fingerprint: finding.fingerprint,
    status: 'open',
    scan_type: job.scan_type,
    scan_types: [job.scan_type],
    target: finding.target,
    rule_id: finding.rule_id,
    subject: finding.subject,
    locations: [...(finding.locations ?? [])].slice(0, LOCATIONS_KEPT),
    assignee: null,
    history: [{ at: now, by: `system: ${job.scan_type} scan ${job.id}`, from: null, to: 'open', reason: 'first seen' }],
    comments: [],
    severity: finding.severity,
    title: finding.title,
    first_seen_at: finding.first_seen_at,
    last_seen_at: now,
    occurrence_count: 1,
    reopened_count: 0,
    last_scan_id: job.id,
    schedule_id: job.schedule_id,
    resolved_at: null,
    resolved_scan_id: null,
    status_reason: null,
    status_until: null,
    status_changed_at: null,
    status_changed_by: null,
    updated_at: now,
    version: 1,
    evaluated_scan_id: job.id,
    evaluated_change: 'new',
    counted_scan_ids: [job.id],
  };
}

/** Scans whose sighting an issue remembers having counted: enough for redeliveries of late scans. */
export const COUNTED_SCANS_KEPT = 8;

/** The issue with one more occurrence, counted for `scanId`. */
function counted(issue: IssueRecord, scanId: string): IssueRecord {
  return {
    ...issue,
    occurrence_count: issue.occurrence_count + 1,
    counted_scan_ids: [...issue.counted_scan_ids, scanId].sort().slice(-COUNTED_SCANS_KEPT),
  };
}

/** A known issue reported again: reopened if it was resolved; an expired acceptance becomes open. */
function sightingOf(issue: IssueRecord, job: Job, finding: TrackedFinding, now: string): IssueRecord {
  const seen: IssueRecord = {
    ...counted(issue, job.id),
    scan_types: withScanType(issue.scan_types, job.scan_type),
    // The subject is the first place it was seen (a secret's first location) and stays; the
    // places add up, so a scan must cover every one of them to resolve it.
    subject: issue.subject || finding.subject,
    locations: [...new Set([...(issue.locations ?? []), ...(finding.locations ?? [])])].slice(0, LOCATIONS_KEPT),
    severity: finding.severity,
    title: finding.title,
    last_seen_at: now,
    last_scan_id: job.id,
    schedule_id: job.schedule_id,
    updated_at: now,
    version: issue.version + 1,
    evaluated_scan_id: job.id,
    evaluated_change: 'unchanged',
  };
  if (issue.status === 'resolved') {
    return {
      ...seen,
      history: withEntry(issue, {
        at: now,
        by: `system: ${job.scan_type} scan ${job.id}`,
        from: 'resolved',
        to: 'open',
        reason: 'seen again',
      }),
      status: 'open',
      reopened_count: issue.reopened_count + 1,
      resolved_at: null,
      resolved_scan_id: null,
      evaluated_change: 'reopened',
    };
  }
  if (issue.status === 'accepted_risk' && effectiveStatus(issue, now) === 'open') {
    return {
      ...seen,
      history: withEntry(issue, {
        at: issue.status_until!,
        by: 'system: accepted risk expired',
        from: 'accepted_risk',
        to: 'open',
        reason: `accepted until ${issue.status_until}`,
      }),
      status: 'open',
      status_changed_at: issue.status_until,
      status_changed_by: 'system: accepted risk expired',
    };
  }
  return seen;
}
