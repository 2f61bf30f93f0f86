/**
 * mailscan's manifest (DESIGN §11, docs/manifests.md): data the service, the build, CI and the docs
 * read; a leaf module (the scope schema and the catalogue only), bundled by the API functions.
 */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import type { Rule } from '../../lib/report.ts';
import { catalogue } from './src/catalogue.ts';
import { ADVERSARY_TECHNIQUES, EmailSecurityScope } from './src/scope.ts';

export { ADVERSARY_TECHNIQUES, EmailSecurityScope };
export type { AdversaryTechnique } from './src/scope.ts';

/**
 * mailscan's catalogue in the kit's `Rule` shape: its most severe severity as the default (the
 * rule's finding picks one of `severities`), its surface and origin (SPEC §2.4 or this project's
 * addition) as tags.
 */
function kitRules(): readonly Rule[] {
  return catalogue.map((rule) => ({
    rule_id: rule.rule_id,
    severity: rule.severities[0] ?? 'info',
    title: rule.title,
    description: rule.fires_when,
    remediation: rule.remediation,
    ...(rule.severities.length > 1 ? { computed_severity: true, severities: rule.severities } : {}),
    tags: [`surface:${rule.surface}`, rule.addition ? 'origin:addition' : 'origin:spec', ...rule.tags],
    references: rule.references,
    ...(rule.cwe ? { cwe: rule.cwe } : {}),
    confidence: rule.confidence,
  }));
}

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
