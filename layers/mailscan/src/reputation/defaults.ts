/**
 * Built-in defaults of the reputation surface. `--config` lists replace these (DESIGN §6); the
 * choices are explained in docs/mailscan-reputation.md.
 */
export const reputationDefaults = {
  dnsbl: {
    /** Free for low-volume, non-commercial use; Spamhaus refuses queries from big public resolvers (use DQS). */
    ipZones: ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org'],
    domainZones: ['dbl.spamhaus.org', 'multi.surbl.org', 'multi.uribl.com'],
  },
  trustlist: { zones: ['list.dnswl.org'] },
  /** No public sender-score API has our shape; an operator points this at an adapter (see the docs). */
  senderScore: { endpoint: '', timeoutMs: 5_000, lowBelow: 50 },
  threatIntel: {
    endpoint: 'https://www.virustotal.com',
    timeoutMs: 8_000,
    /** Blocked when at least this many engines say malicious: one engine alone is often a false positive. */
    maliciousAtLeast: 2,
    /** ...or when the community reputation score is below this. */
    reputationBelow: -10,
  },
  fetch: { timeoutMs: 10_000, maxBytes: 256 * 1024 },
  bimi: {
    /** BIMI asks for SVG Tiny PS logos of at most 32 KiB; the cap leaves room to report an oversized one. */
    svgMaxBytes: 64 * 1024,
    /** A VMC chain with its embedded gzipped logo stays well under this. */
    vmcMaxBytes: 128 * 1024,
  },
  apiMaxBytes: 512 * 1024,
} as const;
