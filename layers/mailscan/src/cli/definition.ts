import type { EngineDefinition } from '../../../engine-kit/src/cli.ts';
import { normaliseDomain } from '../../../../lib/domain-name.ts';
import { SCANNER_NAME, SCANNER_VERSION } from '../version.ts';
import type { PreparedScan, ScopeFile } from './scan-settings.ts';

/**
 * mailscan on the kit's CLI frame (layers/engine-kit/src/cli.ts, docs/engine-contract.md): the kit
 * parses the command line, reads the scope file, prints the usage, the progress lines and the
 * report, and keeps the deadline; mailscan reads its settings (`prepare`) and scans. Everything
 * past the command line is imported on demand: `--version` loads this module and the kit's frame
 * only, `rules` the catalogue, and the scan's modules (zod, the public suffix list) load for a scan.
 */
export const mailscanDefinition: EngineDefinition<ScopeFile, PreparedScan> = {
  name: SCANNER_NAME,
  version: SCANNER_VERSION,
  envPrefix: 'MAILSCAN',
  targetHelp: 'a domain name (an internationalised one is scanned by its punycode form)',
  // The kit's Rule shape (docs/engine-contract.md), the surface a tag.
  catalogue: async () => (await import('../catalogue.ts')).kitRules(),
  scopeSchema: async () => (await import('./scan-entry.ts')).EmailSecurityScopeFile,
  parseTarget: (raw) => {
    const domain = normaliseDomain(raw);
    return domain === null ? { ok: false, message: 'it is not a domain name' } : { ok: true, target: domain };
  },
  prepare: async (input) => (await import('./scan-entry.ts')).prepareScan(input),
  scan: async (context) => (await import('./scan-entry.ts')).runScan(context),
  defaultTimeoutSeconds: 60,
  // The scan ends itself at the deadline (its resolver and surfaces stop on the deadline's signal)
  // with a report that says which surfaces did not finish: the frame waits for that report.
  deadlineGraceMs: 2_000,
  textLines: async (report) => (await import('./text-report.ts')).textLines(report),
  // For local runs and the benches; the runner writes the same scope with --scope-json.
  flags: {
    'no-reputation': { type: 'boolean', scopeField: 'reputation', value: false, help: 'skip block lists and sender reputation' },
    discover: { type: 'boolean', scopeField: 'discover', help: 'find addresses (docs/mailscan-discover-leak.md)' },
    leak: { type: 'boolean', scopeField: 'leak', help: 'breaches, code search, lookalike domains' },
    rua: { type: 'string', multiple: true, scopeField: 'rua', valueName: 'FILE', help: 'a DMARC aggregate report (XML, .zip, .gz)' },
    eml: { type: 'string', scopeField: 'header', valueName: 'FILE', help: 'a message whose headers to check' },
    'dkim-selector': {
      type: 'string',
      multiple: true,
      scopeField: 'dkim_selectors',
      valueName: 'NAME',
      help: 'a DKIM selector to look up',
    },
    technique: { type: 'string', multiple: true, scopeField: 'techniques', valueName: 'T1589.002|T1598', help: 'an adversary technique' },
    nameserver: {
      type: 'string',
      multiple: true,
      valueName: 'IP[:PORT]',
      help: "the DNS server to ask (default MAILSCAN_NAMESERVERS, then the system's)",
    },
  },
};
