/** m365scan's manifest (DESIGN §11, §19; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { M365Scope } from './src/scope.ts';

const manifest = {
  name: 'm365scan',
  scanTypes: ['m365'],
  settingsPrefix: 'M365SCAN_',
  status: 'beta',
  targetKind: 'domain',
  scope: () => M365Scope,
  catalogue: () => catalogue,
  // At most 25 HTTP requests a domain (11 domains with extra_domains) and a few dozen DNS queries: seconds.
  resourceClass: 'standard',
  // Bodies are capped at 1 MiB and read one domain at a time: the process stays near 80 MB.
  memoryMbPerTarget: 128,
  entry: 'src/bin/m365scan.ts',
  bundleBudgetKiB: 200,
  // Its tests serve the zones with NSD and the recorded Microsoft shapes from loopback HTTPS servers
  // (certificates from a test CA made with openssl); they compare with the mailscan build.
  testNeeds: { debian: ['nsd', 'openssl'], binaries: ['nsd', 'openssl'] },
  doc: 'docs/m365scan.md',
  summary:
    "m365: a Microsoft 365 tenant seen from outside: tenant facts, EOP's SPF, DKIM, MTA-STS, dangling CNAMEs, Seamless SSO, ADFS, on-premises OWA",
} as const satisfies EngineManifest;

export default manifest;
