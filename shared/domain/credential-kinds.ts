import type { CredentialKind } from '../../lib/credential.ts';
import { manifestOfScanType } from '../../layers/manifests.ts';
import type { ScanType } from './scan-types.ts';

/** The kinds a scan type's `scope.credential` may name (its engine manifest's `credentialKinds`, DESIGN §16); empty when it takes none. */
export function credentialKindsFor(scanType: ScanType): readonly CredentialKind[] {
  return manifestOfScanType(scanType)?.credentialKinds ?? [];
}
