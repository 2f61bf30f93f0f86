import type { Resolver } from '../../../../lib/dns/resolver.ts';

/**
 * Whether the scanned domain exists at all. A typo or an expired registration answers NXDOMAIN
 * for every question about the name; reporting that as "no SPF, no DMARC, no DKIM" would tell the
 * wrong story, so the scan says `domain_exists: false` with this evidence instead.
 */
export interface NonexistenceEvidence {
  /** The questions about the domain itself that were answered NXDOMAIN. */
  answers: { name: string; type: 'TXT' | 'MX'; rcode: 'NXDOMAIN' }[];
  /** The longest parent name that exists (null when no parent's answer was conclusive). */
  closest_existing_parent: string | null;
  /** The SOA of the zone that holds that parent (the zone that said NXDOMAIN), when found. */
  soa: { zone: string; mname: string; rname: string; serial: number } | null;
}

export type DomainExistence = { exists: true } | { exists: false; evidence: NonexistenceEvidence };

/**
 * Asks the two questions posture already asked (TXT and MX of the domain: answered from the scan's
 * cache), and only for an NXDOMAIN the SOA of every parent at once. Any record found means the
 * domain exists; so does an answer that is not NXDOMAIN (NODATA is an existing name without the type).
 */
export async function checkDomainExistence(domain: string, resolver: Resolver): Promise<DomainExistence> {
  const [txt, mx] = await Promise.all([resolver.query(domain, 'TXT'), resolver.query(domain, 'MX')]);
  const asked = [
    { type: 'TXT' as const, answer: txt },
    { type: 'MX' as const, answer: mx },
  ];
  const nxdomain = asked.filter(({ answer }) => answer.status === 'absent' && answer.reason === 'nxdomain');
  if (
    nxdomain.length === 0 ||
    asked.some(({ answer }) => answer.status === 'found' || (answer.status === 'absent' && answer.reason === 'nodata'))
  )
    return { exists: true };

  const labels = domain.split('.');
  const parents = labels.slice(1).map((_, index) => labels.slice(index + 1).join('.'));
  const soas = await Promise.all(parents.map((name) => resolver.query(name, 'SOA')));
  let closest: string | null = null;
  let soa: NonexistenceEvidence['soa'] = null;
  for (const [index, answer] of soas.entries()) {
    if (closest === null) {
      if (answer.status === 'unknown') break;
      if (answer.status === 'absent' && answer.reason === 'nxdomain') continue;
      closest = parents[index];
    }
    if (answer.status === 'found') {
      const [record] = answer.records;
      soa = { zone: parents[index], mname: record.mname, rname: record.rname, serial: record.serial };
      break;
    }
    if (answer.status === 'unknown') break;
  }
  return {
    exists: false,
    evidence: {
      answers: nxdomain.map(({ type }) => ({ name: domain, type, rcode: 'NXDOMAIN' as const })),
      closest_existing_parent: closest,
      soa,
    },
  };
}
