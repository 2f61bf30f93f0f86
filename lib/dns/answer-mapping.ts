import type { Answer, DecodedPacket } from 'dns-packet';
import type { DnsAnswer, RecordData, RecordType } from './resolver.ts';

/** A CNAME chain that leaves the answer section: the caller asks again for `target`. */
export interface DanglingCname {
  status: 'cname';
  target: string;
}

export const MAX_CHAIN = 8;

export function normaliseName(name: string): string {
  return name.replace(/\.$/, '').toLowerCase();
}

/**
 * Maps a response to the three-state answer. CNAMEs in the answer section are followed from the
 * query name; SERVFAIL and REFUSED are "unknown", never "absent".
 */
export function mapResponse<T extends RecordType>(packet: DecodedPacket, name: string, type: T): DnsAnswer<T> | DanglingCname {
  const rcode = fullRcode(packet);
  if (rcode === 'NXDOMAIN') return { status: 'absent', reason: 'nxdomain' };
  if (rcode === 'SERVFAIL') return { status: 'unknown', reason: 'servfail', message: `SERVFAIL for ${name} ${type}` };
  if (rcode === 'REFUSED') return { status: 'unknown', reason: 'refused', message: `REFUSED for ${name} ${type}` };
  if (rcode !== 'NOERROR') return { status: 'unknown', reason: 'error', message: `${rcode} for ${name} ${type}` };

  const answers = packet.answers ?? [];
  let current = normaliseName(name);
  const seen = new Set([current]);
  for (;;) {
    const matching = answers.filter((answer) => answer.type === type && normaliseName(answer.name) === current);
    if (matching.length > 0) {
      const records = matching.map((answer) => toRecord(type, answer));
      return { status: 'found', records, ...(packet.flag_ad ? { authenticated: true } : {}) };
    }
    const cname = answers.find((answer) => answer.type === 'CNAME' && normaliseName(answer.name) === current);
    if (!cname) {
      if (answers.length === 0 && isReferral(packet))
        return {
          status: 'unknown',
          reason: 'error',
          message: `referral instead of an answer for ${name} ${type}: the nameserver does not recurse`,
        };
      return { status: 'absent', reason: 'nodata' };
    }
    current = normaliseName((cname as { data: string }).data);
    if (seen.has(current) || seen.size > MAX_CHAIN) {
      return { status: 'unknown', reason: 'error', message: `CNAME loop or chain longer than ${MAX_CHAIN} at ${name}` };
    }
    seen.add(current);
    // An authoritative server only answers for its own zones: the chain continues elsewhere.
    if (!answers.some((answer) => normaliseName(answer.name) === current)) return { status: 'cname', target: current };
  }
}

/** Header RCODE names by their full 12-bit value (RFC 6891 §6.1.3: the OPT record holds the upper 8 bits). */
const EXTENDED_RCODES: Record<number, string> = {
  16: 'BADVERS',
  17: 'BADKEY',
  18: 'BADTIME',
  19: 'BADMODE',
  20: 'BADNAME',
  21: 'BADALG',
  22: 'BADTRUNC',
  23: 'BADCOOKIE',
};

/**
 * The response code with the OPT record's extended bits: a server that sets only those (BADVERS)
 * leaves the header's code at 0, which read alone is NOERROR.
 */
function fullRcode(packet: DecodedPacket): string {
  const header = (packet as DecodedPacket & { rcode?: string }).rcode ?? 'NOERROR';
  const opt = (packet.additionals ?? []).find((record) => record.type === 'OPT') as { extendedRcode?: number } | undefined;
  const extended = opt?.extendedRcode ?? 0;
  if (extended === 0) return header;
  const value = (extended << 4) | ((packet.flags ?? 0) & 0xf);
  return EXTENDED_RCODES[value] ?? `RCODE ${value}`;
}

/**
 * A referral: no answer, not authoritative, and NS records (no SOA) in the authority section. It
 * says where to ask next, not that the name has no such record; a resolver we send queries to is
 * meant to recurse, so it is an error, never NODATA.
 */
function isReferral(packet: DecodedPacket): boolean {
  const authorities = packet.authorities ?? [];
  return !packet.flag_aa && authorities.some((record) => record.type === 'NS') && !authorities.some((record) => record.type === 'SOA');
}

function toRecord<T extends RecordType>(type: T, answer: Answer): RecordData[T] {
  const data = (answer as { data: unknown }).data;
  switch (type) {
    case 'A':
    case 'AAAA':
      return data as RecordData[T];
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return normaliseName(data as string) as RecordData[T];
    case 'TXT': {
      const parts = Array.isArray(data) ? data : [data];
      return parts.map((part: string | Buffer) => (typeof part === 'string' ? part : part.toString('utf8'))).join('') as RecordData[T];
    }
    case 'MX': {
      const mx = data as { preference?: number; exchange: string };
      return { preference: mx.preference ?? 0, exchange: normaliseName(mx.exchange) } as RecordData[T];
    }
    case 'SOA': {
      const soa = data as { mname: string; rname: string; serial?: number };
      return { mname: normaliseName(soa.mname), rname: normaliseName(soa.rname), serial: soa.serial ?? 0 } as RecordData[T];
    }
    case 'TLSA': {
      const tlsa = data as { usage: number; selector: number; matchingType: number; certificate: Buffer };
      return {
        usage: tlsa.usage,
        selector: tlsa.selector,
        matchingType: tlsa.matchingType,
        certificate: new Uint8Array(tlsa.certificate),
      } as RecordData[T];
    }
    case 'DNSKEY': {
      const key = data as { flags: number; algorithm: number; key: Buffer };
      return { flags: key.flags, algorithm: key.algorithm, key: new Uint8Array(key.key) } as RecordData[T];
    }
    case 'DS': {
      const ds = data as { keyTag: number; algorithm: number; digestType: number; digest: Buffer };
      return { keyTag: ds.keyTag, algorithm: ds.algorithm, digestType: ds.digestType, digest: new Uint8Array(ds.digest) } as RecordData[T];
    }
    default:
      throw new Error(`unsupported record type ${String(type)}`);
  }
}
