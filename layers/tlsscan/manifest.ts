/** tlsscan's manifest (DESIGN §11, §12; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from '../engine-kit/src/tls/catalogue.ts';
import { TlsScope } from './src/scope.ts';

const manifest = {
  name: 'tlsscan',
  scanTypes: ['ssl'],
  settingsPrefix: 'TLSSCAN_',
  status: 'ga',
  targetKind: 'host_port',
  scope: () => TlsScope,
  catalogue: () => catalogue,
  resourceClass: 'standard',
  memoryMbPerTarget: 256,
  entry: 'src/bin/tlsscan.ts',
  bundleBudgetKiB: 200, // 164 KiB
  testNeeds: {
    debian: ['openssl', 'sslscan', 'testssl.sh'],
    binaries: ['openssl', 'sslscan', 'testssl'],
  },
  doc: 'docs/tlsscan.md',
  summary: "A TLS endpoint's protocols, ciphers, certificate chain and HSTS, STARTTLS included",
} as const satisfies EngineManifest;

export default manifest;
