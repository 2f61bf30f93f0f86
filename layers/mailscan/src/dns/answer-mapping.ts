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
  const rcode = (packet as DecodedPacket & { rcode?: string }).rcode ?? 'NOERROR';
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
    if (!cname) return { status: 'absent', reason: 'nodata' };
    current = normaliseName((cname as { data: string }).data);
    if (seen.has(current) || seen.size > MAX_CHAIN) {
      return { status: 'unknown', reason: 'error', message: `CNAME loop or chain longer than ${MAX_CHAIN} at ${name}` };
    }
    seen.add(current);
    // An authoritative server only answers for its own zones: the chain continues elsewhere.
    if (!answers.some((answer) => normaliseName(answer.name) === current)) return { status: 'cname', target: current };
  }
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
