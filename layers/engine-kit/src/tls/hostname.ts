/**
 * RFC 6125 §6.4 name matching, as browsers apply it: DNS-ID subjectAltNames first; the subject's
 * CN only when the certificate has no DNS-ID (or IP-ID) at all; a wildcard only as the whole
 * left-most label, matching exactly one label, and never directly under a public suffix-like
 * single label ("*.com"). IP targets match iPAddress SANs only.
 */
import { isIP } from 'node:net';

export interface CertificateNames {
  dnsNames: string[];
  ipAddresses: string[];
  commonName?: string;
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Does one presented DNS name (possibly a wildcard) match the reference host? */
export function dnsNameMatches(presented: string, host: string): boolean {
  const pattern = normalise(presented);
  const reference = normalise(host);
  if (!pattern || !reference) return false;
  if (!pattern.includes('*')) return pattern === reference;
  const [first, ...rest] = pattern.split('.');
  if (first !== '*' || rest.length < 2 || rest.some((label) => label.includes('*'))) return false;
  const [, ...referenceRest] = reference.split('.');
  if (referenceRest.length !== rest.length || reference.startsWith('.')) return false;
  // A wildcard does not match an IDN's A-label (RFC 6125 §6.4.3: SHOULD NOT).
  if (reference.split('.')[0].startsWith('xn--')) return false;
  return referenceRest.join('.') === rest.join('.');
}

function normaliseIp(ip: string): string {
  // Node prints IPv6 SANs fully expanded in some versions and compressed in others: compare as bytes.
  if (isIP(ip) !== 6) return ip;
  const url = new URL(`http://[${ip}]/`);
  return url.hostname;
}

/** The presented names that match `host`; empty means a mismatch. */
export function matchingNames(names: CertificateNames, host: string): string[] {
  if (isIP(host)) {
    const reference = normaliseIp(host);
    return names.ipAddresses.filter((ip) => normaliseIp(ip) === reference);
  }
  const hasIds = names.dnsNames.length > 0 || names.ipAddresses.length > 0;
  const candidates = hasIds ? names.dnsNames : names.commonName ? [names.commonName] : [];
  return candidates.filter((name) => dnsNameMatches(name, host));
}

/** Parses Node's X509Certificate.subjectAltName string ("DNS:a, IP Address:1.2.3.4, ..."). */
export function parseSubjectAltName(text: string | undefined): Pick<CertificateNames, 'dnsNames' | 'ipAddresses'> {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const entry of splitSan(text ?? '')) {
    if (entry.startsWith('DNS:')) dnsNames.push(unquote(entry.slice(4)));
    else if (entry.startsWith('IP Address:')) ipAddresses.push(unquote(entry.slice(11)));
  }
  return { dnsNames, ipAddresses };
}

/** Splits on ", " outside of JSON-quoted values (Node quotes names that contain commas). */
function splitSan(text: string): string[] {
  const entries: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' && text[i - 1] !== '\\') quoted = !quoted;
    if (!quoted && ch === ',' && text[i + 1] === ' ') {
      entries.push(current);
      current = '';
      i++;
      continue;
    }
    current += ch;
  }
  if (current) entries.push(current);
  return entries;
}

function unquote(value: string): string {
  return value.startsWith('"') ? (JSON.parse(value) as string) : value;
}
