import { isIPv4 } from 'node:net';
import { domainToASCII } from 'node:url';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The scan target as DNS sees it: IDN to punycode, lowercase, no trailing dot. Null when it is not
 * a domain name (an IP address, a URL, a single label). The API normalises every hostname of a
 * target with this same function (shared/domain/targets.ts), so what it stores is what the CLI scans.
 */
export function normaliseDomain(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '');
  // ':' already refuses every IPv6 address; isIPv4 alone also spares each process the first use
  // of Node's IPv6 pattern (~7 ms to compile).
  if (trimmed === '' || /[\s/:@]/.test(trimmed) || isIPv4(trimmed)) return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (ascii === '' || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  if (/^\d+$/.test(labels[labels.length - 1])) return null;
  return ascii;
}
