import type { FieldIssue } from '../domain/errors.ts';
import type { ScanType } from '../domain/scan-types.ts';

/**
 * Port: checks a scope's `scope.credential` against the tenant's vault (DESIGN §16) when a scan or
 * schedule is created or changed: the alias must exist in this tenant, be of a kind the scan type
 * takes, and be allowed to reach every target's host. Reads metadata only, never a secret.
 */
export interface CredentialReferences {
  checkScope(
    tenant: string,
    scanType: ScanType,
    scope: Readonly<Record<string, unknown>>,
    targets: readonly string[],
  ): Promise<FieldIssue[]>;
}
