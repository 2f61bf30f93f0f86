/**
 * Random scopes against random issues (issue 34, DESIGN §15): no issue resolves outside the
 * coverage of the check that would resolve it, an errored or skipped check resolves nothing, and a
 * sighting never moves a person's decision, first seen or count. The oracle judges coverage from
 * the generated structures (sets of hosts, ports, branches, paths), not by parsing the strings
 * the tracker reads, so a wrong parser or matcher in shared/domain/coverage.ts fails it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Coverage } from '../../lib/report.ts';
import type { FindingRecord } from '../../shared/domain/finding.ts';
import { trackIssues, type TrackedCheck } from '../../shared/domain/issue-tracking.ts';
import type { IssueRecord } from '../../shared/domain/issue.ts';
import { issueRecord } from '../helpers/issue-records.ts';

const HOSTS = ['10.0.0.1', '10.0.0.2', '10.0.1.7', 'db.example.test'];
const PORTS = [22, 80, 443, 6379, 6390, 8080];
const BRANCHES = ['main', 'dev'];
const PATHS = ['app/config.js', 'vendor/lib/key.pem', 'deploy/.env'];
const RULES = ['r.one', 'r.two', 'r.three'];
const NOW = '2026-11-28T12:00:00.000Z';
const SCAN = 'scan_01JZ0000000000000000000009';

type Place = { kind: 'net'; host: number; port: number } | { kind: 'git'; branch: number; history: boolean; path: number };

const netPlace: fc.Arbitrary<Place> = fc.record({
  kind: fc.constant('net' as const),
  host: fc.nat(HOSTS.length - 1),
  port: fc.nat(PORTS.length - 1),
});
const gitPlace: fc.Arbitrary<Place> = fc.record({
  kind: fc.constant('git' as const),
  branch: fc.nat(BRANCHES.length - 1),
  history: fc.boolean(),
  path: fc.nat(PATHS.length - 1),
});
/** An issue's places: of one kind (one engine's), sometimes of both, sometimes none. */
const places: fc.Arbitrary<Place[]> = fc.oneof(
  { weight: 4, arbitrary: fc.array(netPlace, { minLength: 1, maxLength: 3 }) },
  { weight: 4, arbitrary: fc.array(gitPlace, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(netPlace, gitPlace), { minLength: 2, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant<Place[]>([]) },
);

function locationOf(p: Place): string {
  if (p.kind === 'net') return `tcp:${HOSTS[p.host]}:${PORTS[p.port]}`;
  return `git:${BRANCHES[p.branch]}:${p.history ? 'history' : 'head'}:${PATHS[p.path]}`;
}

/** A subset of 0..n-1, often all but one: scopes wide enough that many issues fall inside and many just outside. */
function wideSubset(n: number): fc.Arbitrary<number[]> {
  const all = Array.from({ length: n }, (_, i) => i);
  return fc.oneof(
    fc.subarray(all),
    fc.nat(n - 1).map((left) => all.filter((i) => i !== left)),
    fc.constant(all),
  );
}

/** A scope as sets; `toCoverage` writes it as an engine would. */
type Scope =
  | { kind: 'net'; hosts: number[]; ports: number[]; asCidr: boolean }
  | { kind: 'git'; branch: number; historyRead: boolean; complete: boolean; ignored: number[] }
  | { kind: 'none' };

const scope: fc.Arbitrary<Scope> = fc.oneof(
  fc
    .record({
      kind: fc.constant('net' as const),
      hosts: wideSubset(HOSTS.length),
      ports: wideSubset(PORTS.length),
      asCidr: fc.boolean(),
    })
    .map((s) => (s.asCidr ? { ...s, hosts: [...new Set([0, 1, ...s.hosts])] } : s)),
  fc.record({
    kind: fc.constant('git' as const),
    branch: fc.nat(BRANCHES.length - 1),
    historyRead: fc.boolean(),
    complete: fc.boolean(),
    ignored: fc.oneof(fc.constant<number[]>([]), fc.subarray([0, 1, 2])),
  }),
  fc.constant({ kind: 'none' as const }),
);

function toCoverage(s: Scope): Coverage | undefined {
  if (s.kind === 'none') return undefined;
  if (s.kind === 'net') {
    const hosts = s.hosts.map((h) => HOSTS[h]);
    // 10.0.0.0/24 holds exactly the first two hosts: written as a CIDR when both are in scope.
    const cidr = s.asCidr && s.hosts.includes(0) && s.hosts.includes(1);
    const written = cidr ? ['10.0.0.0/24', ...hosts.filter((h) => !h.startsWith('10.0.0.'))] : hosts;
    const ports = s.ports.map((p) => PORTS[p]).sort((a, b) => a - b);
    return { kind: 'network', scanned: [{ protocol: 'tcp', hosts: written, ports: ports.join(',') }] };
  }
  return {
    kind: 'repository',
    ref: BRANCHES[s.branch],
    history: { read: s.historyRead, commits: 10, complete: s.historyRead && s.complete },
    paths_ignored: s.ignored.map((i) => (PATHS[i].startsWith('vendor/') ? 'vendor/**' : PATHS[i])),
  };
}

/** The oracle: did a check of this scope look at this place? */
function inScope(s: Scope, p: Place): boolean {
  if (s.kind === 'none') return false;
  if (s.kind === 'net') return p.kind === 'net' && s.hosts.includes(p.host) && s.ports.includes(p.port);
  if (p.kind !== 'git' || p.branch !== s.branch || s.ignored.includes(p.path)) return false;
  return !p.history || (s.historyRead && s.complete);
}

const issueArb = fc.record({
  rule: fc.nat(RULES.length - 1),
  places,
  status: fc.constantFrom('open', 'open', 'resolved', 'accepted_risk', 'false_positive'),
  reported: fc.boolean(),
});

const runArb = fc.record({
  issues: fc.array(issueArb, { minLength: 10, maxLength: 40 }),
  checks: fc.array(fc.record({ status: fc.constantFrom('pass', 'pass', 'fail', 'error', 'skipped'), scope }), {
    minLength: RULES.length,
    maxLength: RULES.length,
  }),
  complete: fc.constantFrom(true, true, true, false),
});

let evaluated = 0;
let runs = 0;
let resolvedTotal = 0;

describe('issue tracking over random scopes and issues', () => {
  it('resolves no issue outside its check coverage, and moves no decision, first seen or count', () => {
    fc.assert(
      fc.property(runArb, ({ issues, checks, complete }) => {
        runs += 1;
        const existing: IssueRecord[] = issues.map((generated, n) =>
          issueRecord('acme', n + 1, {
            target: 't',
            rule_id: RULES[generated.rule],
            status: generated.status,
            status_reason: generated.status === 'accepted_risk' || generated.status === 'false_positive' ? 'a person said so' : null,
            locations: generated.places.map(locationOf),
            occurrence_count: 3,
            first_seen_at: '2026-01-01T00:00:00.000Z',
          }),
        );
        evaluated += existing.length;
        const findings: FindingRecord[] = existing
          .filter((_, n) => issues[n].reported)
          .map((issue) => ({
            id: `fnd_${issue.id}`,
            tenant: 'acme',
            scan_id: SCAN,
            schedule_id: null,
            scan_type: 'vapt',
            target: 't',
            rule_id: issue.rule_id,
            subject: issue.subject,
            severity: issue.severity,
            title: issue.title,
            description: '',
            evidence: {},
            remediation: '',
            fingerprint: issue.fingerprint,
            first_seen_at: issue.first_seen_at,
            last_seen_at: NOW,
            created_at: NOW,
          }));
        const trackedChecks = new Map<string, TrackedCheck>(
          checks.map((check, r) => {
            const coverage = toCoverage(check.scope);
            return [RULES[r], { status: check.status, ...(coverage ? { coverage } : {}) }];
          }),
        );
        const { writes, changes } = trackIssues({
          job: { id: SCAN, tenant: 'acme', scan_type: 'vapt', schedule_id: null },
          now: NOW,
          runs: [{ target: 't', complete, checks: trackedChecks, findings }],
          existing,
        });

        resolvedTotal += changes.resolved.length;
        const written = new Map(writes.map((issue) => [issue.id, issue]));
        for (const [n, before] of existing.entries()) {
          const after = written.get(before.id) ?? before;
          const generated = issues[n];
          const check = checks[generated.rule];
          if (changes.resolved.includes(before.id)) {
            // Resolved only: open before, not reported, a complete run, a completed check whose scope held every place.
            expect(before.status).toBe('open');
            expect(generated.reported).toBe(false);
            expect(complete).toBe(true);
            expect(['pass', 'fail']).toContain(check.status);
            expect(generated.places.length).toBeGreaterThan(0);
            expect(generated.places.every((p) => inScope(check.scope, p))).toBe(true);
            expect(after.status).toBe('resolved');
          } else if (
            !generated.reported &&
            complete &&
            before.status === 'open' &&
            (check.status === 'pass' || check.status === 'fail') &&
            generated.places.length > 0 &&
            generated.places.every((p) => inScope(check.scope, p))
          ) {
            // ...and everything that qualifies does resolve: coverage is not simply refused.
            expect.fail(`issue ${before.id} lies inside its check's coverage and was not resolved`);
          }
          if (generated.reported) {
            expect(after.first_seen_at).toBe(before.first_seen_at);
            expect(after.occurrence_count).toBe(before.occurrence_count + 1);
            if (before.status === 'accepted_risk' || before.status === 'false_positive') {
              expect(after.status).toBe(before.status);
              expect(after.status_reason).toBe(before.status_reason);
            }
            expect(changes.new).not.toContain(before.id);
          }
        }
      }),
      { numRuns: 1000, seed: Number(process.env.PROPERTY_SEED ?? 34) },
    );
    if (process.env.PROPERTY_FIGURE)
      process.stdout.write(`issue coverage property: ${runs} runs, ${evaluated} issues judged, ${resolvedTotal} resolved\n`);
    expect(runs).toBe(1000);
  });
});
