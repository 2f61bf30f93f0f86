import { describe, expect, it } from 'vitest';
import type { FindingRecord } from '../../shared/domain/finding.ts';
import { trackIssues, type TargetRun } from '../../shared/domain/issue-tracking.ts';
import type { CheckStatus } from '../../shared/domain/scan-job.ts';
import { issueIdOf, type IssueRecord } from '../../shared/domain/issue.ts';

const T1 = '2026-03-01T00:00:00.000Z';
const T2 = '2026-03-02T00:00:00.000Z';
const SCAN_1 = 'scan_01HZ0000000000000000000001';
const SCAN_2 = 'scan_01HZ0000000000000000000002';
const SCAN_3 = 'scan_01HZ0000000000000000000003';
const fp = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

function found(n: number, overrides: Partial<FindingRecord> = {}): FindingRecord {
  return {
    id: `fnd_${n}`,
    tenant: 'acme',
    scan_id: SCAN_1,
    schedule_id: 'sch_A',
    scan_type: 'ssl',
    target: 'example.com:443',
    rule_id: `tls.rule_${n}`,
    subject: 'example.com:443',
    severity: 'high',
    title: `finding ${n}`,
    description: '',
    evidence: {},
    remediation: '',
    fingerprint: fp(n),
    first_seen_at: T1,
    last_seen_at: T1,
    created_at: T1,
    ...overrides,
  };
}

function run(findings: FindingRecord[], checks: Record<string, CheckStatus> = {}, complete = true): TargetRun {
  const whole = { kind: 'target' } as const;
  const tracked = Object.entries(checks).map(([id, status]) => [id, { status, coverage: whole }] as const);
  return { target: 'example.com:443', complete, checks: new Map(tracked), findings };
}

const job = (id: string) => ({ id, tenant: 'acme', scan_type: 'ssl' as const, schedule_id: 'sch_A' });

/** Runs scans in turn, feeding each one the issues the previous ones wrote. */
function scans(...steps: { id: string; now: string; runs: TargetRun[] }[]) {
  let stored = new Map<string, IssueRecord>();
  const results = steps.map((step) => {
    const tracked = trackIssues({ job: job(step.id), now: step.now, runs: step.runs, existing: [...stored.values()] });
    stored = new Map([...stored, ...tracked.writes.map((issue) => [issue.id, issue] as const)]);
    return tracked;
  });
  return { results, stored };
}

describe('trackIssues', () => {
  it('opens a new issue per fingerprint with first seen, one occurrence and the scan that saw it', () => {
    const { results, stored } = scans({ id: SCAN_1, now: T1, runs: [run([found(1), found(2)])] });

    expect(results[0].changes).toEqual({ new: [issueIdOf(fp(1)), issueIdOf(fp(2))], resolved: [], reopened: [], unchanged: [] });
    expect(stored.get(issueIdOf(fp(1)))).toMatchObject({
      status: 'open',
      first_seen_at: T1,
      last_seen_at: T1,
      occurrence_count: 1,
      reopened_count: 0,
      last_scan_id: SCAN_1,
      schedule_id: 'sch_A',
      rule_id: 'tls.rule_1',
    });
  });

  it('counts a sighting of an open issue as unchanged and moves last seen', () => {
    const { results, stored } = scans({ id: SCAN_1, now: T1, runs: [run([found(1)])] }, { id: SCAN_2, now: T2, runs: [run([found(1)])] });

    expect(results[1].changes.unchanged).toEqual([issueIdOf(fp(1))]);
    expect(stored.get(issueIdOf(fp(1)))).toMatchObject({
      status: 'open',
      first_seen_at: T1,
      last_seen_at: T2,
      occurrence_count: 2,
      last_scan_id: SCAN_2,
    });
  });

  it('resolves an open issue only when a complete run passed its check and did not report it', () => {
    const first = { id: SCAN_1, now: T1, runs: [run([found(1), found(2), found(3), found(4)])] };
    const later = run([], { 'tls.rule_1': 'pass', 'tls.rule_2': 'error', 'tls.rule_3': 'skipped' });

    const { results, stored } = scans(first, { id: SCAN_2, now: T2, runs: [later] });

    expect(results[1].changes.resolved).toEqual([issueIdOf(fp(1))]);
    expect(stored.get(issueIdOf(fp(1)))).toMatchObject({ status: 'resolved', resolved_at: T2, resolved_scan_id: SCAN_2 });
    for (const n of [2, 3, 4]) expect(stored.get(issueIdOf(fp(n)))?.status).toBe('open');
  });

  it('resolves nothing from a partial run, even where the check passed', () => {
    const { results, stored } = scans(
      { id: SCAN_1, now: T1, runs: [run([found(1)])] },
      { id: SCAN_2, now: T2, runs: [run([], { 'tls.rule_1': 'pass' }, false)] },
    );

    expect(results[1].changes.resolved).toEqual([]);
    expect(stored.get(issueIdOf(fp(1)))?.status).toBe('open');
  });

  it('resolves nothing on another target or from a run without checks', () => {
    const other = { ...run([], { 'tls.rule_1': 'pass' }), target: 'other.com:443' };
    const { results } = scans({ id: SCAN_1, now: T1, runs: [run([found(1)])] }, { id: SCAN_2, now: T2, runs: [other, run([])] });

    expect(results[1].changes.resolved).toEqual([]);
  });

  it('reopens a resolved issue seen again and counts the reopening', () => {
    const { results, stored } = scans(
      { id: SCAN_1, now: T1, runs: [run([found(1)])] },
      { id: SCAN_2, now: T2, runs: [run([], { 'tls.rule_1': 'pass' })] },
      { id: SCAN_3, now: '2026-03-03T00:00:00.000Z', runs: [run([found(1)])] },
    );

    expect(results[2].changes.reopened).toEqual([issueIdOf(fp(1))]);
    expect(stored.get(issueIdOf(fp(1)))).toMatchObject({ status: 'open', reopened_count: 1, occurrence_count: 2, resolved_at: null });
  });

  it('keeps an accepted risk or a false positive as set while it is seen, and leaves it when its check passes', () => {
    const first = scans({ id: SCAN_1, now: T1, runs: [run([found(1), found(2)])] }).stored;
    const triaged = [
      { ...first.get(issueIdOf(fp(1)))!, status: 'accepted_risk' as const, status_until: '2026-04-01T00:00:00.000Z' },
      { ...first.get(issueIdOf(fp(2)))!, status: 'false_positive' as const },
    ];

    const seen = trackIssues({ job: job(SCAN_2), now: T2, runs: [run([found(1), found(2)])], existing: triaged });
    const passed = trackIssues({
      job: job(SCAN_2),
      now: T2,
      runs: [run([], { 'tls.rule_1': 'pass', 'tls.rule_2': 'pass' })],
      existing: triaged,
    });

    expect(seen.writes.map((issue) => issue.status)).toEqual(['accepted_risk', 'false_positive']);
    expect(seen.changes.unchanged).toHaveLength(2);
    expect(passed.writes).toEqual([]);
  });

  it('opens an accepted risk again once its until has passed', () => {
    const first = scans({ id: SCAN_1, now: T1, runs: [run([found(1)])] }).stored;
    const accepted = { ...first.get(issueIdOf(fp(1)))!, status: 'accepted_risk' as const, status_until: '2026-03-01T12:00:00.000Z' };

    const tracked = trackIssues({ job: job(SCAN_2), now: T2, runs: [run([found(1)])], existing: [accepted] });

    expect(tracked.writes[0]).toMatchObject({ status: 'open', status_changed_at: '2026-03-01T12:00:00.000Z' });
  });

  it('changes nothing twice when the same scan runs again, and counts the same changes', () => {
    const first = scans({ id: SCAN_1, now: T1, runs: [run([found(1), found(2)])] }).stored;
    const step = { runs: [run([found(2), found(3)], { 'tls.rule_1': 'pass' })] };
    const once = trackIssues({ job: job(SCAN_2), now: T2, existing: [...first.values()], ...step });
    const afterOnce = new Map([...first, ...once.writes.map((issue) => [issue.id, issue] as const)]);

    const again = trackIssues({ job: job(SCAN_2), now: '2026-03-02T00:31:00.000Z', existing: [...afterOnce.values()], ...step });

    expect(again.writes).toEqual([]);
    expect(again.changes).toEqual(once.changes);
    expect(once.changes).toEqual({ new: [issueIdOf(fp(3))], resolved: [issueIdOf(fp(1))], reopened: [], unchanged: [issueIdOf(fp(2))] });
  });

  it('lets an older scan finishing late count its sighting once and change nothing a newer scan decided', () => {
    const { stored } = scans(
      { id: SCAN_1, now: T1, runs: [run([found(1)])] },
      { id: SCAN_3, now: T2, runs: [run([], { 'tls.rule_1': 'pass' })] },
    );

    const late = trackIssues({ job: job(SCAN_2), now: T2, runs: [run([found(1)])], existing: [...stored.values()] });

    const again = trackIssues({ job: job(SCAN_2), now: T2, runs: [run([found(1)])], existing: late.writes });

    expect(late.writes).toEqual([
      { ...stored.get(issueIdOf(fp(1)))!, occurrence_count: 2, counted_scan_ids: [SCAN_1, SCAN_2], version: 3 },
    ]);
    expect(late.changes.unchanged).toEqual([issueIdOf(fp(1))]);
    expect(again.writes).toEqual([]);
  });
});

describe('trackIssues: one issue per (tenant, target, rule, subject)', () => {
  it('takes a finding on the target spelt another way, same rule and subject, as a sighting of the issue', () => {
    const first = scans({ id: SCAN_1, now: T1, runs: [run([found(1)])] });
    const existing = [...first.stored.values()].map((issue) => ({ ...issue, status: 'accepted_risk' as const, status_reason: 'known' }));
    const other = found(9, { target: 'EXAMPLE.com:443', rule_id: 'tls.rule_1', subject: 'example.com:443' });

    const tracked = trackIssues({
      job: job(SCAN_2),
      now: T2,
      runs: [{ target: 'EXAMPLE.com:443', complete: true, checks: new Map(), findings: [other] }],
      existing,
    });

    expect(tracked.changes.new).toEqual([]);
    expect(tracked.writes).toHaveLength(1);
    expect(tracked.writes[0]).toMatchObject({
      id: existing[0].id,
      status: 'accepted_risk',
      first_seen_at: T1,
      occurrence_count: 2,
    });
  });
});
