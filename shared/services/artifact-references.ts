import { manifestOfScanType } from '../../layers/manifests.ts';
import type { ArtifactPurpose } from '../domain/artifact.ts';
import type { FieldIssue } from '../domain/errors.ts';
import type { ArtifactReferences } from '../ports/artifact-references.ts';
import type { ArtifactRepository } from '../ports/artifact-repository.ts';
import type { Clock } from '../ports/clock.ts';

// Its own module, apart from the artifact service, so the schedules function's bundle gets the
// row reads without the scanner's readers the artifact check imports (docs/cold-start.md).

/** The scope fields of `scanType` that name artifacts, with the purpose each must have: its engine manifest's `artifactFields`. */
export function artifactScopeFields(scanType: string): Readonly<Record<string, ArtifactPurpose>> {
  const fields = manifestOfScanType(scanType)?.artifactFields ?? {};
  return Object.fromEntries(Object.entries(fields).map(([field, { purpose }]) => [field, purpose as ArtifactPurpose]));
}

/**
 * ArtifactReferences over the artifact rows: a row is read under the caller's tenant only. A row
 * past its `expires_at` is refused: the bucket's lifecycle deletes the bytes then, and the row's
 * TTL deletion may lag by days, so a `ready` row alone does not mean the bytes are still there.
 */
export function makeArtifactReferences(repo: ArtifactRepository, clock: Clock): ArtifactReferences {
  return {
    async checkReferences(tenant, field, artifactIds, purpose, list = artifactIds.length > 1) {
      const issues: FieldIssue[] = [];
      for (const [index, id] of artifactIds.entries()) {
        const record = await repo.get(tenant, id);
        const name = list ? `${field}.${index}` : field;
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
 * The issues of a scope's artifact ids (`scope.<field>.N` for a list, `scope.<field>` for one id),
 * for the fields asked (every artifact field of the type by default). A field the scope does not
 * set is not checked. The caller has already validated the scope's shape.
 */
export async function scopeArtifactIssues(
  artifacts: ArtifactReferences,
  tenant: string,
  scanType: string,
  scope: Readonly<Record<string, unknown>>,
  fields?: readonly string[],
): Promise<FieldIssue[]> {
  const purposes = artifactScopeFields(scanType);
  const issues: FieldIssue[] = [];
  for (const field of fields ?? Object.keys(purposes)) {
    const purpose = purposes[field];
    const value = scope[field];
    const ids = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
    if (purpose && ids.length > 0)
      issues.push(...(await artifacts.checkReferences(tenant, `scope.${field}`, ids, purpose, Array.isArray(value))));
  }
  return issues;
}
