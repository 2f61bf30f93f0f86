import type { ArtifactPurpose } from '../domain/artifact.ts';
import type { FieldIssue } from '../domain/errors.ts';

/**
 * What the scan and schedule services ask before accepting scope.rua / scope.header (DESIGN §4):
 * whether the ids name ready, unexpired artifacts of the tenant with the right purpose.
 */
export interface ArtifactReferences {
  /** Issues for ids that are not ready, unexpired artifacts of this tenant with this purpose. */
  checkReferences(tenant: string, field: string, ids: readonly string[], purpose: ArtifactPurpose): Promise<FieldIssue[]>;
}
