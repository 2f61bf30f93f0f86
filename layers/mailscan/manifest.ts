/**
 * mailscan's manifest (DESIGN §11, docs/manifests.md): data the service, the build, CI and the docs
 * read; a leaf module (the scope schema and the catalogue only), bundled by the API functions.
 */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { kitRules } from './src/catalogue.ts';
import { ADVERSARY_TECHNIQUES, EmailSecurityScope } from './src/scope.ts';

export { ADVERSARY_TECHNIQUES, EmailSecurityScope };
export type { AdversaryTechnique } from './src/scope.ts';

const manifest = {
  name: 'mailscan',
  scanTypes: ['email_security'],
  settingsPrefix: 'MAILSCAN_',
  status: 'ga',
  targetKind: 'domain',
  scope: () => EmailSecurityScope,
  catalogue: kitRules,
  resourceClass: 'standard',
  memoryMbPerTarget: 256,
  artifactFields: { rua: { purpose: 'rua', many: true }, header: { purpose: 'eml', many: false } },
  summaryMetrics: ['score', 'grade'],
  entry: 'src/bin/mailscan.ts',
  build: 'build.ts',
  startupSnapshot: true,
  bundleBudgetKiB: 2200, // 2,002 KiB (2,356 before zod's locales left with its namespace import): X.509, the public suffix list, yauzl, saxes, dns-packet
  testNeeds: {
    debian: ['dmarc-cat', 'python3-dkim', 'python3-authres', 'python3-spf', 'dnstwist'],
    binaries: ['dmarc-cat', 'dnstwist', '/usr/bin/python3'],
    python: ['dkim', 'authres', 'spf'],
  },
  doc: 'docs/mailscan.md',
  summary: "A domain's email security: SPF, DKIM, DMARC, MTA-STS, BIMI, reputation, lookalikes, DMARC reports, headers",
} as const satisfies EngineManifest;

export default manifest;
