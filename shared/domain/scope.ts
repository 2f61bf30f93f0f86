import * as z from 'zod';
import { NetscanRequestScope } from '../../layers/netscan/src/scope.ts';
import { SecretScanScope } from '../../layers/secretscan/src/scope.ts';
import { TlsScope } from '../../layers/tlsscan/src/scope.ts';
import type { ScanType } from './scan-types.ts';
import { zodIssues, type FieldIssue } from './errors.ts';
import { ArtifactId } from './ids.ts';
import { storableIssues } from './storable.ts';

export const MAX_SCOPE_BYTES = 16 * 1024;

/** Scope keys only the backfill may set (DESIGN §4). */
export const LEGACY_SCOPE_KEYS = ['source_legacy_model', 'source_legacy_id'] as const;
export type LegacyScopeKey = (typeof LEGACY_SCOPE_KEYS)[number];

export function isLegacyScopeKey(key: string): key is LegacyScopeKey {
  return (LEGACY_SCOPE_KEYS as readonly string[]).includes(key);
}

/** The scope a runner acts on: the backfill's provenance tags removed. */
export function withoutLegacyKeys(scope: Scope): Scope {
  return Object.fromEntries(Object.entries(scope).filter(([key]) => !isLegacyScopeKey(key)));
}

/** Adversary techniques the email_security scan executes (DESIGN §5, SPEC §2.6). */
export const ADVERSARY_TECHNIQUES = ['T1589.002', 'T1598'] as const;
export type AdversaryTechnique = (typeof ADVERSARY_TECHNIQUES)[number];

/** How deep a scope may nest (DynamoDB stores 32 levels in all; a scope needs far fewer). */
export const MAX_SCOPE_DEPTH = 16;

/**
 * email_security scope (DESIGN §4). `rua` lists artifact ids of purpose rua (DMARC aggregate
 * reports) and `header` one artifact id of purpose eml; the scan and schedule services also check
 * that each is a ready artifact of the tenant (docs/artifacts.md).
 */
export const EmailSecurityScope = z.lazy(() =>
  z.strictObject({
    reputation: z.boolean().optional(),
    discover: z.boolean().optional(),
    leak: z.boolean().optional(),
    rua: z.array(ArtifactId).min(1).max(20).optional(),
    header: ArtifactId.optional(),
    dkim_selectors: z
      .array(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
          // Names the value: "DKIM selectors include "bad!", which is not a selector (…)" in the form.
          error: (issue) =>
            `include ${JSON.stringify(String(issue.input).slice(0, 64))}, which is not a selector (letters, digits and ._- only)`,
        }),
      )
      .max(50)
      .optional(),
    /** Set only by the dispatcher for an adversary step; the API refuses it. */
    techniques: z.array(z.enum(ADVERSARY_TECHNIQUES)).min(1).max(ADVERSARY_TECHNIQUES.length).optional(),
  }),
);
export type EmailSecurityScope = z.infer<typeof EmailSecurityScope>;

export const Scope = z.record(z.string(), z.unknown());
export type Scope = z.infer<typeof Scope>;

/**
 * The scope schema of each scan type with an engine: strict, so a misspelt option is refused
 * rather than silently ignored. Each engine owns its schema (its `scope.ts`, a leaf module of
 * zod only, so the API and the UI bundle it without the engine).
 */
const SCOPE_SCHEMAS: Partial<Record<ScanType, z.ZodType>> = {
  email_security: EmailSecurityScope,
  ssl: TlsScope,
  vm: NetscanRequestScope,
  vapt: NetscanRequestScope,
  secret_scan: SecretScanScope,
};

/** Checks a scope for a scan type; returns issues with fields under `scope.`. */
export function checkScope(scanType: ScanType, scope: Scope, options: { allowLegacyKeys: boolean }): FieldIssue[] {
  // First: what follows (JSON.stringify, zod) must only ever see values the store can hold.
  const unstorable = storableIssues(scope, 'scope', MAX_SCOPE_DEPTH);
  if (unstorable.length > 0) return unstorable;
  if (Buffer.byteLength(JSON.stringify(scope)) > MAX_SCOPE_BYTES) {
    return [{ field: 'scope', message: `must be at most ${MAX_SCOPE_BYTES} bytes as JSON` }];
  }
  const issues: FieldIssue[] = [];
  if (!options.allowLegacyKeys) {
    for (const key of LEGACY_SCOPE_KEYS) {
      if (key in scope) issues.push({ field: `scope.${key}`, message: 'is read-only: set only by the backfill' });
    }
  }
  if ('techniques' in scope) issues.push({ field: 'scope.techniques', message: 'is set only by adversary runs' });
  const schema = SCOPE_SCHEMAS[scanType];
  if (schema) {
    const parsed = schema.safeParse(withoutLegacyKeys(scope));
    if (!parsed.success) issues.push(...zodIssues(parsed.error, 'scope'));
  }
  return issues;
}
