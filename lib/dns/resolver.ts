/**
 * The one DNS port of the engines (mailscan, m365scan): every check takes a Resolver; nothing
 * else touches the network for DNS. Answers have three states so that a timeout is never mistaken for "no record".
 */
export type RecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'CNAME' | 'NS' | 'SOA' | 'PTR' | 'TLSA' | 'DNSKEY' | 'DS';

export interface MxRecord {
  preference: number;
  exchange: string;
}
export interface TlsaRecord {
  usage: number;
  selector: number;
  matchingType: number;
  certificate: Uint8Array;
}
export interface DnskeyRecord {
  flags: number;
  algorithm: number;
  key: Uint8Array;
}
export interface DsRecord {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: Uint8Array;
}
export interface SoaRecord {
  mname: string;
  rname: string;
  serial: number;
}

/** Record data by type: TXT strings are the record's character-strings joined. */
export interface RecordData {
  A: string;
  AAAA: string;
  MX: MxRecord;
  TXT: string;
  CNAME: string;
  NS: string;
  SOA: SoaRecord;
  PTR: string;
  TLSA: TlsaRecord;
  DNSKEY: DnskeyRecord;
  DS: DsRecord;
}

export type DnsAnswer<T extends RecordType> =
  | { status: 'found'; records: RecordData[T][]; authenticated?: boolean }
  | { status: 'absent'; reason: 'nxdomain' | 'nodata' }
  | { status: 'unknown'; reason: 'timeout' | 'servfail' | 'refused' | 'error'; message: string };

export interface Resolver {
  query<T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T>>;
}
