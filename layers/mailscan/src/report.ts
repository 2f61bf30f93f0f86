import * as z from 'zod';
import { CHECK_STATUSES } from '../../../lib/check-status.ts';
import { coverageSchema } from '../../../lib/report.ts';
import { SEVERITIES } from '../../../lib/severity.ts';

/**
 * The report `mailscan scan` prints (DESIGN §6): the one contract between the CLI and the service's
 * email_security runner, which parses stdout with `reportSchema`. Surface details are open objects
 * (`looseObject`) so a newer scanner can add fields without breaking an older runner; the fields the
 * runner relies on are typed.
 */
export const surfaceStatusSchema = z.enum(['ok', 'error', 'skipped']);
export const severitySchema = z.enum(SEVERITIES);
export const gradeSchema = z.enum(['A', 'B', 'C', 'D', 'F']);

export const reportFindingSchema = z.object({
  rule_id: z.string(),
  severity: severitySchema,
  title: z.string(),
  detail: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  remediation: z.string(),
  /** Present when the evidence holds counts: the part that identifies the finding across scans. */
  evidence_key: z.string().max(1000).optional(),
  /** The record in words, and where it was seen (lib/report.ts `Coverage`). */
  subject: z.string().max(1000).optional(),
  locations: z.array(z.string().max(1200)).max(100).optional(),
  /** The kit's key for "the same problem" (lib/report.ts): `evidence_key`, else the evidence as canonical JSON. */
  fingerprint_key: z.string().max(16_000).optional(),
  /** This finding's name within the report, which an adversary finding's `base_fingerprint` refers to. */
  ref: z.string().max(200).optional(),
});

export const checkErrorSchema = z.object({
  surface: z.string(),
  check: z.string(),
  message: z.string(),
});

/** One check per catalogue rule: pass, fail, error or skipped, as the code that ran it recorded it (src/scan/check-recorder.ts). */
export const checkSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(CHECK_STATUSES),
  detail: z.string(),
  coverage: coverageSchema().optional(),
});

export const spfSchema = z.looseObject({
  status: z.enum(['ok', 'none', 'permerror', 'temperror']),
  record: z.string().nullable(),
  records: z.array(z.string()),
  lookups: z.number().int().nonnegative(),
  void_lookups: z.number().int().nonnegative(),
  all: z.string().nullable(),
  tree: z.unknown(),
});

export const dmarcSchema = z.looseObject({
  status: z.enum(['ok', 'none', 'invalid', 'temperror']),
  record: z.string().nullable(),
  source: z.enum(['domain', 'organizational']).nullable(),
  policy: z.enum(['none', 'quarantine', 'reject']).nullable(),
});

export const dkimSchema = z.looseObject({
  status: z.enum(['ok', 'none', 'temperror']),
  selectors_probed: z.number().int().nonnegative(),
  keys: z.array(z.looseObject({ selector: z.string(), key_type: z.string(), bits: z.number().int().nullable(), revoked: z.boolean() })),
});

export const postureSchema = z.looseObject({
  status: surfaceStatusSchema,
  score: z.number().int().min(0).max(100).nullable(),
  grade: gradeSchema.nullable(),
  spf: spfSchema,
  dkim: dkimSchema,
  dmarc: dmarcSchema,
});

/** A surface this scan did not run: `reason` says why (not requested, or not in this build). */
export const otherSurfaceSchema = z.looseObject({ status: surfaceStatusSchema });

/** Why a domain is reported as not existing (DESIGN §6): its NXDOMAIN answers and the closest existing parent. */
export const nonexistenceSchema = z.looseObject({
  answers: z.array(z.object({ name: z.string(), type: z.string(), rcode: z.literal('NXDOMAIN') })),
  closest_existing_parent: z.string().nullable(),
  soa: z.object({ zone: z.string(), mname: z.string(), rname: z.string(), serial: z.number() }).nullable(),
});

export const reportSchema = z.object({
  scanner: z.object({ name: z.literal('mailscan'), version: z.string() }),
  domain: z.string(),
  /** The kit's report fields (lib/report.ts `EngineReport`): the domain as the target, the status of the checks. */
  target: z.string(),
  status: z.enum(['ok', 'partial', 'error']),
  /** The posture score and grade, where the domain has them: the manifest's summary metrics. */
  summary: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  /** Set when the domain does not exist: the runner fails the target with it. */
  failure: z.string().optional(),
  /**
   * false when the domain itself answers NXDOMAIN; null when DNS could not be asked (a dead resolver:
   * only the offline surfaces report); a report without it (an older scanner) is read as true.
   */
  domain_exists: z.boolean().nullable().default(true),
  nonexistence: nonexistenceSchema.optional(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  surfaces: z.object({
    posture: postureSchema,
    reputation: otherSurfaceSchema,
    discover: otherSurfaceSchema,
    leak: otherSurfaceSchema,
    rua: otherSurfaceSchema,
    header: otherSurfaceSchema,
  }),
  /** The adversary techniques this scan executed (--technique), when any. */
  techniques: z.array(z.string()).optional(),
  findings: z.array(reportFindingSchema),
  errors: z.array(checkErrorSchema),
  /** One per catalogue rule (DESIGN §11); a report without them (an older scanner) has none. */
  checks: z.array(checkSchema).default([]),
});

export type Report = z.infer<typeof reportSchema>;
