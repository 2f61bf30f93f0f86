/**
 * sbomscan's manifest (DESIGN §11, §18): the sbom scan type, read by every consumer through
 * layers/manifests.ts. Data only: the scope schema and the catalogue are leaf modules.
 */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { CATALOGUE } from './src/catalogue.ts';
import { SbomScope } from './src/scope.ts';

const manifest: EngineManifest = {
  name: 'sbomscan',
  scanTypes: ['sbom'],
  settingsPrefix: 'SBOMSCAN_',
  status: 'beta',
  targetKind: 'repository',
  scope: () => SbomScope,
  catalogue: () => CATALOGUE,
  resourceClass: 'standard',
  // A depth-1 pack and the lockfiles' text: 5,000 packages take well under 100 MB (docs/sbomscan.md).
  memoryMbPerTarget: 256,
  credentialKinds: ['git_token'],
  // Stored as an artifact of purpose sbom, served by GET /api/scans/{id}/sbom/ (DESIGN §18).
  outputs: { sbom: { purpose: 'sbom', contentType: 'application/vnd.cyclonedx+json' } },
  entry: 'src/bin/sbomscan.ts',
  bundleBudgetKiB: 400,
  testNeeds: {
    debian: ['git'],
    binaries: ['git', '/usr/lib/git-core/git-http-backend'],
    npm: ['@cyclonedx/cdxgen@12.8.4', '@cyclonedx/cyclonedx-npm@6.0.1'],
  },
  doc: 'docs/sbomscan.md',
  summary: "A CycloneDX 1.6 SBOM of a repository's lockfiles, with known vulnerabilities from OSV and what changed since the last scan",
};

export default manifest;
