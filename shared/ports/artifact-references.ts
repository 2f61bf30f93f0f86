import type { ArtifactPurpose } from '../domain/artifact.ts';
import type { FieldIssue } from '../domain/errors.ts';

/**
 * What the scan and schedule services ask before accepting a scope's artifact fields (DESIGN §4;
 * the engine's manifest names them): whether the ids name ready, unexpired artifacts of the tenant
 * with the right purpose.
 */
export interface ArtifactReferences {
  /** Issues for ids that are not ready, unexpired artifacts of this tenant with this purpose; `list`: the field holds a list (issues name `field.N`). */
  checkReferences(tenant: string, field: string, ids: readonly string[], purpose: ArtifactPurpose, list?: boolean): Promise<FieldIssue[]>;
}
