/** The expanded SPF record as reported: every term with the DNS lookups it spends (RFC 7208 §4.6.4). */
export type SpfNodeStatus = 'ok' | 'none' | 'permerror' | 'temperror';

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
  void_lookups: number;
}

export interface SpfTermNode {
  term: string;
  /** 1 for include, a, mx, ptr, exists and an effective redirect, plus what an include/redirect pulls in. */
  lookups: number;
  void_lookup?: true;
  /** Contains a macro: counted, but not followed (there is no message to expand it against). */
  macro?: true;
  /** Names a domain already on the include path: not followed again. */
  loop?: true;
  /** The same domain is included elsewhere in the tree too (each inclusion costs lookups again). */
  duplicate?: true;
  /** Why the term costs nothing or was not followed. */
  note?: string;
  error?: string;
  child?: SpfNode;
}
