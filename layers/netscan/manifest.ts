/** netscan's manifest (DESIGN §11, §14; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { minimumScanSeconds } from './src/duration.ts';
import { NetscanRequestScope } from './src/scope.ts';

const manifest = {
  name: 'netscan',
  // One engine for two scan types: the job's type becomes the scope's `mode` (vm: NVD and OSV lookups of
  // detected versions; vapt: unauthenticated-access probes).
  scanTypes: ['vm', 'vapt'],
  scanTypeScopeKey: 'mode',
  settingsPrefix: 'NETSCAN_',
  status: 'ga',
  targetKind: 'network',
  scope: () => NetscanRequestScope,
  catalogue: () => catalogue,
  resourceClass: 'standard',
  memoryMbPerTarget: 256,
  minimumSeconds: minimumScanSeconds,
  entry: 'src/bin/netscan.ts',
  bundleBudgetKiB: 264, // 244 KiB: + the NVD CVE API client, CPE matching and Debian version order (issue 33 item 11)
  testNeeds: {
    debian: ['nmap', 'openssl', 'redis-server', 'openssh-server'],
    binaries: ['nmap', 'openssl', 'redis-server', '/usr/sbin/sshd', '/usr/bin/python3'],
  },
  doc: 'docs/netscan.md',
  summary: 'Open ports, exposed services and cleartext protocols (vapt), and known-vulnerable versions from NVD and OSV (vm)',
} as const satisfies EngineManifest;

export default manifest;
