import { getDomain } from 'tldts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';

/** The BIMI assertion record: `default._bimi.<domain>`, falling back to the organizational domain. */
export type BimiRecordLookup =
  { status: 'found'; name: string; records: string[] } | { status: 'absent' } | { status: 'unknown'; name: string; message: string };

export async function findBimiRecord(domain: string, resolver: Resolver): Promise<BimiRecordLookup> {
  const normalised = domain.toLowerCase().replace(/\.$/, '');
  const organizational = getDomain(normalised, { allowPrivateDomains: false });
  const candidates = organizational && organizational !== normalised ? [normalised, organizational] : [normalised];
  for (const candidate of candidates) {
    const name = `default._bimi.${candidate}`;
    const answer = await resolver.query(name, 'TXT');
    // An unknown answer stops the walk: falling back would report the parent's record as this domain's.
    if (answer.status === 'unknown') return { status: 'unknown', name, message: `${answer.reason}: ${answer.message}` };
    const records = answer.status === 'found' ? answer.records.filter((text) => /^v\s*=\s*BIMI1\s*(;|$)/i.test(text.trim())) : [];
    if (records.length > 0) return { status: 'found', name, records };
  }
  return { status: 'absent' };
}

/** Tag-value list (`v=BIMI1; l=https://...; a=https://...`); keys lowercased. */
export function parseBimiTags(record: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const part of record.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    tags[part.slice(0, index).trim().toLowerCase()] = part.slice(index + 1).trim();
  }
  return tags;
}
