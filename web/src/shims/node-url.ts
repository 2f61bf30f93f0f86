/**
 * Browser stand-in for node:url's domainToASCII: the WHATWG URL host parser, which is the
 * algorithm Node uses too. Returns '' for an invalid domain, like Node.
 */
export function domainToASCII(domain: string): string {
  if (/[#?/\\%@:[\]\s]/.test(domain)) return '';
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return '';
  }
}
