import type { CredentialKind } from '../../lib/credential.ts';
import type { ScanType } from './scan-types.ts';

/**
 * The credential kinds `scope.credential` may name, per scan type (DESIGN §16).
 *
 * TO BE REPLACED by the engine manifests' `credentialKinds` (lib/engine-manifest.ts) once
 * `layers/manifests.ts` is on main: this map is the stand-in until then, for the engines this
 * branch has. A scan type missing here takes no credential.
 */
const KINDS_BY_SCAN_TYPE: Partial<Record<ScanType, readonly CredentialKind[]>> = {
  secret_scan: ['git_token'],
};

/** The kinds a scan type's `scope.credential` may name; empty when it takes none. */
export function credentialKindsFor(scanType: ScanType): readonly CredentialKind[] {
  return KINDS_BY_SCAN_TYPE[scanType] ?? [];
}
