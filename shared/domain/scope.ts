import * as z from 'zod';
import { MANIFESTS } from '../../layers/manifests.ts';
import type { ScanType } from './scan-types.ts';
import { zodIssues, type FieldIssue } from './errors.ts';
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

// email_security's scope is mailscan's (its manifest); re-exported for the mailscan runner and
// the dispatcher's adversary steps.
export { ADVERSARY_TECHNIQUES, EmailSecurityScope, type AdversaryTechnique } from '../../layers/mailscan/manifest.ts';

/** How deep a scope may nest (DynamoDB stores 32 levels in all; a scope needs far fewer). */
export const MAX_SCOPE_DEPTH = 16;

export const Scope = z.record(z.string(), z.unknown());
export type Scope = z.infer<typeof Scope>;

/**
 * The scope schema of each scan type with an engine, from the engines' manifests
 * (layers/manifests.ts): strict, so a misspelt option is refused rather than silently ignored. A
 * manifest must name its scope schema, so a scan type with a runner always has one.
 */
const SCOPE_SCHEMAS: ReadonlyMap<string, () => z.ZodType> = new Map(
  MANIFESTS.flatMap((manifest) => manifest.scanTypes.map((scanType) => [scanType, manifest.scope] as const)),
);

/** The scope schema of `scanType`'s engine; undefined for a type no engine of this build runs. */
export function scopeSchemaOf(scanType: string): z.ZodType | undefined {
  return SCOPE_SCHEMAS.get(scanType)?.();
}

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
  const schema = scopeSchemaOf(scanType);
  if (schema) {
    const parsed = schema.safeParse(withoutLegacyKeys(scope));
    if (!parsed.success) issues.push(...zodIssues(parsed.error, 'scope'));
  }
  return issues;
}
