import { createHash } from 'node:crypto';
import * as z from 'zod';
import { pageQueryFields } from './page-query.ts';
import { ScanType } from './scan-types.ts';
import { Severity } from './scan-job.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';

// Object schemas are z.lazy, built at their first parse: a Lambda function builds at cold start
// none of the request schemas its first request does not need, and none of the response schemas,
// which the API never parses (docs/cold-start.md).

export const Finding = z.lazy(() =>
  z.object({
    id: z.string(),
    scan_id: z.string(),
    schedule_id: z.string().nullable(),
    scan_type: ScanType,
    target: z.string(),
    rule_id: z.string(),
    /** The problem's place in words (host:port, path:line, record, URL path, package); empty when the runner names none. */
    subject: z.string(),
    severity: Severity,
    title: z.string(),
    description: z.string(),
    evidence: z.record(z.string(), z.unknown()),
    remediation: z.string(),
    fingerprint: z.string(),
    first_seen_at: z.string(),
    last_seen_at: z.string(),
    created_at: z.string(),
  }),
);
export type Finding = z.infer<typeof Finding>;

export interface FindingRecord extends Finding {
  tenant: string;
}

/** What a runner reports; the engine turns it into a Finding. */
export const RunnerFinding = z.lazy(() =>
  z.object({
    rule_id: z.string().min(1).max(200),
    severity: Severity,
    title: z.string().max(500),
    description: z.string().max(10_000),
    evidence: z.record(z.string(), z.unknown()),
    remediation: z.string().max(10_000),
    /** What makes two sightings the same finding; defaults to the whole evidence. */
    evidence_key: z.string().max(16_000).optional(),
    /** Where, in words; defaults to the evidence key. */
    subject: z.string().max(1000).optional(),
    /** Where, in the coverage's location forms (shared/domain/coverage.ts). */
    locations: z.array(z.string().max(1200)).max(100).optional(),
    /**
     * The runner's own name for this finding within the run. Another finding of the same target
     * whose `evidence.base_fingerprint` equals it gets the stored fingerprint there instead, so an
     * adversary finding points at its stored base finding (docs/mailscan-discover-leak.md).
     */
    ref: z.string().max(200).optional(),
  }),
);
export type RunnerFinding = z.infer<typeof RunnerFinding>;

export const FindingListQuery = z.lazy(() =>
  z.strictObject({
    scan_id: z.string().min(1).max(64).optional().describe('only this scan'),
    rule_id: z.string().min(1).max(200).optional().describe('only this rule'),
    severity: Severity.optional().describe('only this severity'),
    target: z.string().min(1).max(2048).optional().describe('only this target'),
    ...pageQueryFields(),
  }),
);
export type FindingListQuery = z.infer<typeof FindingListQuery>;

export const FindingList = z.lazy(() => z.object({ items: z.array(Finding), next_cursor: z.string().nullable() }));

/** Stable across scans (DESIGN §4): tenant, target, rule id and the evidence key. */
export function fingerprintOf(
  tenant: string,
  target: string,
  finding: Pick<RunnerFinding, 'rule_id' | 'evidence' | 'evidence_key'>,
): string {
  const evidenceKey = finding.evidence_key ?? canonicalJson(finding.evidence);
  return createHash('sha256').update([tenant, target, finding.rule_id, evidenceKey].join('\u0000')).digest('hex');
}

/** A finding's id: its scan's ULID then its fingerprint, so ids sort by scan age and a redelivered scan rewrites, never duplicates. */
export function findingIdOf(scanId: string, fingerprint: string): string {
  return `fnd_${scanId.replace(/^scan_/, '')}${fingerprint.slice(0, 20)}`;
}
