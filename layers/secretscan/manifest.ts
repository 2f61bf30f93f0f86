/** secretscan's manifest (DESIGN §11, §13; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { DEFAULT_BOUNDS } from './src/bounds.ts';
import { CATALOGUE } from './src/catalogue.ts';
import { SecretScanScope } from './src/scope.ts';

const manifest = {
  name: 'secretscan',
  scanTypes: ['secret_scan'],
  settingsPrefix: 'SECRETSCAN_',
  // No operator key reaches it: the repository tokens SECRETSCAN_TOKEN_<NAME> are retired in favour
  // of tenant credentials (DESIGN §16), handed over in --credential-file.
  operatorKeyPrefixes: [],
  // scope.credential names a git_token of the tenant (docs/credentials.md).
  credentialKinds: ['git_token'],
  status: 'ga',
  targetKind: 'repository',
  scope: () => SecretScanScope,
  catalogue: () => CATALOGUE,
  resourceClass: 'standard',
  memoryMbPerTarget: 256,
  // The pack goes to /tmp, up to the pack bound (src/bounds.ts).
  tmpMbPerTarget: Math.ceil(DEFAULT_BOUNDS.maxPackBytes / (1024 * 1024)),
  entry: 'src/bin/secretscan.ts',
  // V8 sizes its young generation from the host's memory (128 MB on a 24 GB machine); 2 MB
  // semi-spaces bound it whatever the host, at no measured cost (docs/secretscan.md, "Memory").
  nodeFlags: ['--max-semi-space-size=2'],
  // 240 KiB: secretlint's preset (439 KiB with isomorphic-git, which our own pack reader replaced);
  // 267 KiB with issue 33's bounded memory (small-object inflate, chunked arrays, compact sightings).
  bundleBudgetKiB: 280,
  testNeeds: {
    debian: ['git'],
    binaries: ['git'],
  },
  doc: 'docs/secretscan.md',
  summary: "Secrets in a Git repository's files and history, fetched over smart HTTP",
} as const satisfies EngineManifest;

export default manifest;
