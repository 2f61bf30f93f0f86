/**
 * Dangling CNAMEs (DESIGN §19): the names Microsoft 365 asks a domain to publish, pointing at a
 * name that no longer exists, can be taken over by whoever registers that name. Only NXDOMAIN at
 * the end of the chain counts: a name that exists without addresses is not dangling, and a DNS
 * answer that cannot be read is an error, never "not dangling".
 */
import type { Resolver } from '../../../../lib/dns/resolver.ts';

export const MICROSOFT_CNAME_LABELS = [
  'autodiscover',
  'lyncdiscover',
  'sip',
  'msoid',
  'enterpriseregistration',
  'enterpriseenrollment',
] as const;

export type CnameState =
  | { name: string; kind: 'no_cname' }
  | { name: string; kind: 'resolves'; target: string }
  | { name: string; kind: 'dangling'; target: string }
  | { name: string; kind: 'error'; message: string };

export async function readMicrosoftCname(resolver: Resolver, name: string): Promise<CnameState> {
  const cname = await resolver.query(name, 'CNAME');
  if (cname.status === 'unknown') return { name, kind: 'error', message: `CNAME of ${name}: ${cname.message}` };
  if (cname.status === 'absent') return { name, kind: 'no_cname' };
  const target = cname.records[0].replace(/\.$/, '').toLowerCase();
  // Asking the CNAME's own name follows the whole chain (the resolver chases it across zones).
  const [a, aaaa] = await Promise.all([resolver.query(name, 'A'), resolver.query(name, 'AAAA')]);
  if (a.status === 'found' || aaaa.status === 'found') return { name, kind: 'resolves', target };
  if (a.status === 'unknown') return { name, kind: 'error', message: `A of ${target}: ${a.message}` };
  if (aaaa.status === 'unknown') return { name, kind: 'error', message: `AAAA of ${target}: ${aaaa.message}` };
  if (a.reason === 'nxdomain') return { name, kind: 'dangling', target };
  return { name, kind: 'resolves', target };
}
