/**
 * webscan's manifest (DESIGN §11, lib/engine-manifest.ts): the dast engine of DESIGN §17.
 */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { WebScope } from './src/scope.ts';

const manifest = {
  name: 'webscan',
  scanTypes: ['dast'],
  settingsPrefix: 'WEBSCAN_',
  status: 'beta',
  targetKind: 'http_url',
  scope: () => WebScope,
  catalogue: () => catalogue,
  // 200 pages at the default 5 requests a second take about a minute; max_pages 2000 at 20/s fits too.
  resourceClass: 'standard',
  // Bodies are capped at 2 MiB and analysed one at a time (4 in flight): the peak stays under ~150 MB.
  memoryMbPerTarget: 256,
  credentialKinds: ['http_header'],
  entry: 'src/bin/webscan.ts',
  bundleBudgetKiB: 210,
  testNeeds: {
    debian: ['nginx', 'apache2', 'wapiti', 'nmap', 'openssl'],
    binaries: ['nginx', 'apache2', 'wapiti', 'nmap', 'openssl'],
  },
  doc: 'docs/webscan.md',
  summary: 'dast: a baseline web scan (crawl, passive checks, exposure probes, two opt-in safe active checks)',
} as const satisfies EngineManifest;

export default manifest;
