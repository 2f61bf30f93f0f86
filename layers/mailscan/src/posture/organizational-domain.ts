import { getDomain } from 'tldts';

/**
 * The organizational domain (RFC 7489 §3.2) from the public suffix list. Names under a suffix the
 * list does not know (such as the reserved `.test`) fall back to the last two labels.
 */
export function organizationalDomain(domain: string): string {
  const registrable = getDomain(domain, { allowPrivateDomains: false });
  if (registrable) return registrable;
  return domain.split('.').slice(-2).join('.');
}
