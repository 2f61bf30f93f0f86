/** nhiscan's manifest (DESIGN §11, §20; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { NhiScope } from './src/scope.ts';

const manifest = {
  name: 'nhiscan',
  scanTypes: ['nhi'],
  settingsPrefix: 'NHISCAN_',
  status: 'beta',
  targetKind: 'credential_alias',
  scope: () => NhiScope,
  catalogue: () => catalogue,
  resourceClass: 'standard',
  // A few dozen small API answers (policies bounded at 128 KiB each): the process stays near 100 MB.
  memoryMbPerTarget: 160,
  // The target is the credential itself (an alias of one of these kinds), not `scope.credential`.
  credentialKinds: ['aws_access_key', 'github_token', 'gitlab_token', 'slack_token'],
  entry: 'src/bin/nhiscan.ts',
  bundleBudgetKiB: 800, // 740 KiB: the AWS SDK v3 IAM and STS clients (with the SDK core and its SigV4 signer) are most of it
  // moto_server (Python, on the machine image) stands in for IAM and STS; GitHub, GitLab and Slack are loopback fakes.
  testNeeds: { debian: [], binaries: ['moto_server'] },
  doc: 'docs/nhiscan.md',
  summary:
    'NHI: reviews one machine identity of the vault (AWS key, GitHub, GitLab or Slack token): valid, age, last use, privilege, expiry, leaked',
} as const satisfies EngineManifest;

export default manifest;
