import type { ArtifactPurpose } from '../domain/artifact.ts';
import type { FieldIssue } from '../domain/errors.ts';
import type { ArtifactReferences } from '../ports/artifact-references.ts';
import type { ArtifactRepository } from '../ports/artifact-repository.ts';
import type { Clock } from '../ports/clock.ts';

// Its own module, apart from the artifact service, so the schedules function's bundle gets the
// row reads without the scanner's readers the artifact check imports (docs/cold-start.md).

/** The scope fields that name artifacts, with the purpose each must have. */
export const ARTIFACT_SCOPE_FIELDS = { rua: 'rua', header: 'eml' } as const satisfies Record<string, ArtifactPurpose>;
export type ArtifactScopeField = keyof typeof ARTIFACT_SCOPE_FIELDS;

/**
 * ArtifactReferences over the artifact rows: a row is read under the caller's tenant only. A row
 * past its `expires_at` is refused: the bucket's lifecycle deletes the bytes then, and the row's
 * TTL deletion may lag by days, so a `ready` row alone does not mean the bytes are still there.
 */
export function makeArtifactReferences(repo: ArtifactRepository, clock: Clock): ArtifactReferences {
  return {
    async checkReferences(tenant, field, artifactIds, purpose) {
      const issues: FieldIssue[] = [];
      for (const [index, id] of artifactIds.entries()) {
        const record = await repo.get(tenant, id);
        const name = artifactIds.length > 1 || field.endsWith('rua') ? `${field}.${index}` : field;
        // Another tenant's id reads as missing: the row is looked up under this tenant only.
        if (!record) issues.push({ field: name, message: `artifact ${id} not found` });
        else if (record.purpose !== purpose)
          issues.push({ field: name, message: `artifact ${id} has purpose ${record.purpose}, not ${purpose}` });
        else if (Date.parse(record.expires_at) <= clock.now().getTime())
          issues.push({ field: name, message: `artifact ${id} expired at ${record.expires_at}; upload the file again` });
        else if (record.status !== 'ready')
          issues.push({
            field: name,
            message: `artifact ${id} is ${record.status}${record.reason ? ` (${record.reason})` : ''}, not ready`,
          });
      }
      return issues;
    },
  };
}

/**
 * The issues of an email_security scope's artifact ids (`scope.rua.N`, `scope.header`), for the
 * fields asked (both by default). A field the scope does not set is not checked. The caller has
 * already validated the scope's shape (rua an array of ids, header one id).
 */
export async function scopeArtifactIssues(
  artifacts: ArtifactReferences,
  tenant: string,
  scope: Readonly<Record<string, unknown>>,
  fields: readonly ArtifactScopeField[] = ['rua', 'header'],
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  for (const field of fields) {
    const value = scope[field];
    const ids = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
    if (ids.length > 0) issues.push(...(await artifacts.checkReferences(tenant, `scope.${field}`, ids, ARTIFACT_SCOPE_FIELDS[field])));
  }
  return issues;
}
