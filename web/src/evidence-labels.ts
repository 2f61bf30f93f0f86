/**
 * Evidence field names in words (issue 41 item 4). Engines write evidence with wire names
 * (`suites_by_protocol`, `author_date`); a reader sees what each one is. A name no table knows
 * falls back to its words with the first capitalised (`record_domain` → "Record domain").
 */

/** Names that mean the same in every engine's evidence. */
const COMMON: Record<string, string> = {
  endpoint: 'Endpoint',
  host: 'Host',
  url: 'URL',
  ip: 'IP address',
  dns: 'DNS',
  ttl: 'TTL (seconds)',
  spf: 'SPF',
  dmarc: 'DMARC',
  dkim: 'DKIM',
  mx: 'MX',
  sha256: 'Fingerprint (SHA-256)',
};

/** Secret Scan: where a secret was found, and what it is without showing it. */
const SECRET: Record<string, string> = {
  path: 'File',
  line: 'Line',
  commit: 'Commit',
  author_date: 'Date',
  in_head: 'Still in the branch tip',
  kind: 'Detector',
  masked: 'Secret (masked)',
  length: 'Length (characters)',
  locations: 'Where it was found',
  locations_total: 'Places found',
};

/** SSL/TLS: protocol, cipher and certificate-chain fields as a reader names them. */
const TLS: Record<string, string> = {
  protocol: 'Protocol version',
  protocols: 'Protocol versions accepted',
  sslv2_cipher_kinds: 'SSLv2 cipher kinds offered',
  tls12: 'TLS 1.2',
  tls13: 'TLS 1.3',
  suites_by_protocol: 'Cipher suites, by protocol version',
  suites: 'Cipher suites',
  categories: 'Why the suites are insecure',
  group_bits: 'Diffie-Hellman group size (bits)',
  method: 'Compression method',
  claimed_bytes: 'Bytes the heartbeat asked for',
  returned_bytes: 'Bytes the server sent back',
  status: 'HTTP status',
  header: 'Strict-Transport-Security header',
  invalid: 'Why the header is invalid',
  answer: 'What the server answered',
  certificate: 'Certificate',
  role: 'Place in the chain',
  not_before: 'Valid from',
  not_after: 'Valid until',
  days_left: 'Days until it expires',
  subject_alt_names: 'Names the certificate covers (SAN)',
  common_name: 'Common name (CN)',
  key: 'Key problem',
  signature_algorithm: 'Signature algorithm',
  missing_issuer: 'Issuer the server did not send',
  sent: 'Certificates the server sent',
  reason: 'Why the chain is not trusted',
};

/** The table for a rule id's engine: `tls.protocol.sslv3` → TLS, `secretscan.aws_access_key` → SECRET. */
function tableOf(ruleId: string | undefined): Record<string, string> {
  if (!ruleId) return {};
  if (ruleId.startsWith('tls.')) return TLS;
  if (ruleId.startsWith('secretscan.') || ruleId.startsWith('secret.')) return SECRET;
  return {};
}

/** `key` in words, for a finding of `ruleId` (the engine's names first, then the common ones). */
export function evidenceLabel(key: string, ruleId?: string): string {
  const named = tableOf(ruleId)[key] ?? COMMON[key];
  if (named) return named;
  const words = key.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
