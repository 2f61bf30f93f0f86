import { createHash } from 'node:crypto';
import { getDomain } from 'tldts';
import { finding } from '../catalogue.ts';
import type { DnsAnswer, DnskeyRecord, DsRecord } from '../../../../lib/dns/resolver.ts';
import type { ReputationContext, ReputationInput } from './context.ts';
import { checkError, type CheckResult } from './check-result.ts';

export interface DnssecData {
  /** unknown: an answer needed to decide was unknown; that is an error, never "unsigned". */
  state: 'signed' | 'unsigned' | 'unknown';
  zone: string;
  dnskey: 'found' | 'absent' | 'unknown';
  ds: 'found' | 'absent' | 'unknown';
  keys?: { flags: number; sep: boolean; algorithm: number; algorithm_name: string; key_tag: number }[];
  ds_records?: { key_tag: number; algorithm: number; digest_type: number; matches_dnskey: boolean | null }[];
}

const algorithmNames: Record<number, string> = {
  5: 'RSASHA1',
  7: 'RSASHA1-NSEC3-SHA1',
  8: 'RSASHA256',
  10: 'RSASHA512',
  13: 'ECDSAP256SHA256',
  14: 'ECDSAP384SHA384',
  15: 'ED25519',
  16: 'ED448',
};
const digestAlgorithms: Record<number, string> = { 1: 'sha1', 2: 'sha256', 4: 'sha384' };

/**
 * DNSKEY at the zone apex and DS from the parent. The apex is the longest name from the domain up
 * to its organizational domain that has an SOA; every question is asked at once so this adds one
 * round trip, not one per label.
 */
export async function checkDnssec(input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<DnssecData>> {
  const candidates = apexCandidates(input.domain);
  const organizational = candidates[candidates.length - 1];
  const asked = await Promise.all(
    candidates.map(async (name) => {
      const [soa, dnskey, ds] = await Promise.all([
        name === organizational ? null : ctx.resolver.query(name, 'SOA'),
        ctx.resolver.query(name, 'DNSKEY'),
        ctx.resolver.query(name, 'DS'),
      ]);
      return { name, soa, dnskey, ds };
    }),
  );
  const undecided = asked.find((entry) => entry.soa?.status === 'unknown');
  if (undecided) return unknown(undecided.name, 'the SOA answer is unknown, so the zone apex is too');
  const apex = asked.find((entry) => entry.soa === null || entry.soa.status === 'found')!;
  const dnskey = apex.dnskey;
  const ds = apex.ds;
  const data: DnssecData = {
    state: 'signed',
    zone: apex.name,
    dnskey: dnskey.status,
    ds: ds.status,
    ...(dnskey.status === 'found' ? { keys: dnskey.records.map((key) => describeKey(key)) } : {}),
    ...(ds.status === 'found' ? { ds_records: ds.records.map((record) => describeDs(record, apex.name, dnskey)) } : {}),
  };
  if (dnskey.status === 'found' || ds.status === 'found') return { status: 'ok', data, findings: [], errors: [] };
  if (dnskey.status === 'unknown' || ds.status === 'unknown') {
    const which = [dnskey.status === 'unknown' ? 'DNSKEY' : null, ds.status === 'unknown' ? 'DS' : null].filter(Boolean).join(' and ');
    return {
      status: 'error',
      data: { ...data, state: 'unknown' },
      findings: [],
      errors: [checkError('dnssec', `${apex.name}: the ${which} answer is unknown`)],
    };
  }
  return {
    status: 'ok',
    data: { ...data, state: 'unsigned' },
    findings: [
      finding('mailscan.dnssec.unsigned', 'low', `${apex.name} publishes no DNSKEY and its parent no DS.`, {
        zone: apex.name,
        dnskey: dnskey.reason,
        ds: ds.reason,
      }),
    ],
    errors: [],
  };

  function unknown(name: string, message: string): CheckResult<DnssecData> {
    return {
      status: 'error',
      data: { state: 'unknown', zone: name, dnskey: 'unknown', ds: 'unknown' },
      findings: [],
      errors: [checkError('dnssec', `${name}: ${message}`)],
    };
  }
}

/** The domain and each parent up to the organizational domain, longest first. */
function apexCandidates(domain: string): string[] {
  const normalised = domain.toLowerCase().replace(/\.$/, '');
  const organizational = getDomain(normalised, { allowPrivateDomains: false }) ?? normalised;
  const labels = normalised.split('.');
  const candidates: string[] = [];
  for (let i = 0; i < labels.length; i += 1) {
    const name = labels.slice(i).join('.');
    candidates.push(name);
    if (name === organizational) break;
  }
  return candidates;
}

function describeKey(key: DnskeyRecord): NonNullable<DnssecData['keys']>[number] {
  return {
    flags: key.flags,
    sep: (key.flags & 1) === 1,
    algorithm: key.algorithm,
    algorithm_name: algorithmNames[key.algorithm] ?? 'other',
    key_tag: keyTag(key),
  };
}

function describeDs(record: DsRecord, zone: string, dnskey: DnsAnswer<'DNSKEY'>): NonNullable<DnssecData['ds_records']>[number] {
  const digestAlgorithm = digestAlgorithms[record.digestType];
  const keys =
    dnskey.status === 'found' ? dnskey.records.filter((key) => key.algorithm === record.algorithm && keyTag(key) === record.keyTag) : [];
  const matches =
    digestAlgorithm === undefined || dnskey.status !== 'found'
      ? null
      : keys.some((key) =>
          createHash(digestAlgorithm).update(ownerWire(zone)).update(dnskeyRdata(key)).digest().equals(Buffer.from(record.digest)),
        );
  return { key_tag: record.keyTag, algorithm: record.algorithm, digest_type: record.digestType, matches_dnskey: matches };
}

function dnskeyRdata(key: DnskeyRecord): Buffer {
  // Protocol is always 3 (RFC 4034 §2.1.2).
  return Buffer.concat([Buffer.from([key.flags >> 8, key.flags & 0xff, 3, key.algorithm]), Buffer.from(key.key)]);
}

/** RFC 4034 Appendix B. */
export function keyTag(key: DnskeyRecord): number {
  let accumulator = 0;
  dnskeyRdata(key).forEach((byte, index) => {
    accumulator += index & 1 ? byte : byte << 8;
  });
  accumulator += (accumulator >> 16) & 0xffff;
  return accumulator & 0xffff;
}

function ownerWire(name: string): Buffer {
  const labels = name
    .toLowerCase()
    .split('.')
    .filter((label) => label !== '');
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0]),
  ]);
}
