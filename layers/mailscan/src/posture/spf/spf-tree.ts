/** The expanded SPF record as reported: every term with the DNS lookups it spends (RFC 7208 §4.6.4). */
export type SpfNodeStatus = 'ok' | 'none' | 'permerror' | 'temperror';
/** The sender's address family: an `a` term asks for A for IPv4 senders and AAAA for IPv6 senders. */
export type VoidFamily = 'ipv4' | 'ipv6';

export interface SpfNode {
  domain: string;
  /** The v=spf1 record evaluated here (the first, when there are several). */
  record: string | null;
  status: SpfNodeStatus;
  /** What the TXT query for this domain returned: nxdomain/nodata make an include or redirect a void lookup. */
  txt: 'found' | 'nxdomain' | 'nodata' | 'unknown';
  error?: string;
  terms: SpfTermNode[];
  /** DNS-querying terms in this record and everything it pulls in. */
  lookups: number;
  /** The worse of the two families below. */
  void_lookups: number;
  void_lookups_ipv4?: number;
  void_lookups_ipv6?: number;
}

export interface SpfTermNode {
  term: string;
  /** 1 for include, a, mx, ptr, exists and an effective redirect, plus what an include/redirect pulls in. */
  lookups: number;
  /** A void lookup for senders of both families. */
  void_lookup?: true;
  /** A void lookup for senders of this family only (an `a` name with only AAAA records, or only A). */
  void_for?: VoidFamily[];
  /** Void lookups behind the term per sender family (an mx term's hosts without addresses of that family). */
  voids?: Record<VoidFamily, number>;
  /** Contains a macro: followed when it is only %{d} (see `expanded`), else counted, not followed. */
  macro?: true;
  /** The domain a %{d} macro expanded to. */
  expanded?: string;
  /** Names a domain already on the include path: not followed again. */
  loop?: true;
  /** The same domain is included elsewhere in the tree too (each inclusion costs lookups again). */
  duplicate?: true;
  /** Why the term costs nothing or was not followed. */
  note?: string;
  error?: string;
  child?: SpfNode;
}
