/**
 * What each list's answers mean. A list answers an A query with 127.x codes; some codes mean
 * "listed", others mean "your query was refused" — those are errors for that list, because a
 * refused query says nothing about the subject (never "listed", never "clean").
 */
export type ListKind = 'ip' | 'domain' | 'trust';

export type Decoded = { outcome: 'listed' | 'error'; meaning: string };

export interface ListDefinition {
  zone: string;
  name: string;
  kind: ListKind;
  /** Answers IPv6 subjects in nibble form; lists that do not are not asked (NXDOMAIN would read as "clean"). */
  ipv6: boolean;
  /** Spamhaus Data Query Service zone this public zone maps to with an operator key. */
  dqsZone?: string;
  decode: (code: string) => Decoded;
}

const spamhausErrors: Record<string, string> = {
  '127.255.255.252': 'query refused: typing error in the DNSBL name',
  '127.255.255.254': 'query refused: queried through a public or open resolver',
  '127.255.255.255': 'query refused: excessive number of queries',
};

/** Exact codes first; Spamhaus reserves all of 127.255.255.0/24 for errors. */
function table(codes: Record<string, string>, errors: Record<string, string>, errorPrefix?: string): (code: string) => Decoded {
  return (code) => {
    if (errors[code]) return { outcome: 'error', meaning: errors[code] };
    if (errorPrefix && code.startsWith(errorPrefix))
      return { outcome: 'error', meaning: `query refused (${errorPrefix}0/24 is reserved for errors)` };
    return { outcome: 'listed', meaning: codes[code] ?? 'listed (undocumented return code)' };
  };
}

/** SURBL and URIBL pack several lists into the last octet as bits. */
function bitmask(bits: Record<number, string>, errors: Record<string, string>): (code: string) => Decoded {
  return (code) => {
    if (errors[code]) return { outcome: 'error', meaning: errors[code] };
    const last = Number(code.split('.')[3]);
    const meanings = Object.entries(bits)
      .filter(([bit]) => (last & Number(bit)) !== 0)
      .map(([, meaning]) => meaning);
    return { outcome: 'listed', meaning: meanings.length > 0 ? meanings.join(', ') : 'listed (undocumented return code)' };
  };
}

const dnswlCategories: Record<number, string> = {
  2: 'financial services',
  3: 'email service providers',
  4: 'organisations',
  5: 'service/network providers',
  6: 'personal/private servers',
  7: 'travel/leisure',
  8: 'public sector/governments',
  9: 'media and tech companies',
  10: 'special cases',
  11: 'education, academic',
  12: 'healthcare',
  13: 'manufacturing/industrial',
  14: 'retail/wholesale/services',
  15: 'email marketing providers',
  20: 'added through self-service without specific category',
};
const dnswlTrust = ['none', 'low', 'medium', 'high'];

/** DNSWL: 127.0.<category>.<trust 0-3>; 127.0.0.255 means the query was refused. */
function dnswl(code: string): Decoded {
  if (code === '127.0.0.255') return { outcome: 'error', meaning: 'query refused: access denied or volume exceeded' };
  const [, , category, trust] = code.split('.').map(Number);
  const trustName = dnswlTrust[trust ?? -1];
  if (trustName === undefined) return { outcome: 'error', meaning: `unexpected return code ${code}` };
  return { outcome: 'listed', meaning: `trust ${trustName} (${dnswlCategories[category ?? -1] ?? `category ${category}`})` };
}

/** Lists we have return-code tables for; other configured zones use `genericList`. */
export const knownLists: readonly ListDefinition[] = [
  {
    zone: 'zen.spamhaus.org',
    name: 'Spamhaus ZEN',
    kind: 'ip',
    ipv6: true,
    dqsZone: 'zen.dq.spamhaus.net',
    decode: table(
      {
        '127.0.0.2': 'SBL: Spamhaus SBL data',
        '127.0.0.3': 'SBL CSS: Spamhaus CSS data',
        '127.0.0.4': 'XBL: exploited host (CBL)',
        '127.0.0.9': 'SBL DROP/EDROP data',
        '127.0.0.10': 'PBL: ISP-maintained policy list',
        '127.0.0.11': 'PBL: Spamhaus-maintained policy list',
      },
      spamhausErrors,
      '127.255.255.',
    ),
  },
  {
    zone: 'dbl.spamhaus.org',
    name: 'Spamhaus DBL',
    kind: 'domain',
    ipv6: false,
    dqsZone: 'dbl.dq.spamhaus.net',
    decode: table(
      {
        '127.0.1.2': 'spam domain',
        '127.0.1.4': 'phishing domain',
        '127.0.1.5': 'malware domain',
        '127.0.1.6': 'botnet C&C domain',
        '127.0.1.102': 'abused legit spam',
        '127.0.1.103': 'abused spammed redirector domain',
        '127.0.1.104': 'abused legit phish',
        '127.0.1.105': 'abused legit malware',
        '127.0.1.106': 'abused legit botnet C&C',
      },
      { ...spamhausErrors, '127.0.1.255': 'query refused: IP queries prohibited' },
      '127.255.255.',
    ),
  },
  {
    zone: 'bl.spamcop.net',
    name: 'SpamCop',
    kind: 'ip',
    ipv6: false,
    decode: table({ '127.0.0.2': 'listed by SpamCop spam reports' }, {}),
  },
  {
    zone: 'b.barracudacentral.org',
    name: 'Barracuda BRBL',
    kind: 'ip',
    ipv6: false,
    decode: table({ '127.0.0.2': 'listed on the Barracuda Reputation Block List' }, {}),
  },
  {
    zone: 'multi.surbl.org',
    name: 'SURBL',
    kind: 'domain',
    ipv6: false,
    decode: bitmask(
      { 8: 'PH: phishing', 16: 'MW: malware', 64: 'ABUSE: spam and abuse', 128: 'CR: cracked site' },
      { '127.0.0.1': 'query refused: access blocked for this resolver' },
    ),
  },
  {
    zone: 'multi.uribl.com',
    name: 'URIBL',
    kind: 'domain',
    ipv6: false,
    decode: bitmask(
      { 2: 'black: spam domain', 4: 'grey: grey-hat sender', 8: 'red: newly observed spam domain' },
      { '127.0.0.1': 'query refused: resolver blocked or volume exceeded' },
    ),
  },
  { zone: 'list.dnswl.org', name: 'DNSWL', kind: 'trust', ipv6: true, decode: dnswl },
];

/**
 * A configured zone we have no table for: a 127/8 answer is a listing, except 127.255.255.0/24,
 * which lists use for "query refused" (Spamhaus's convention, followed by its mirrors and
 * imitators). Both address families are asked.
 */
export function genericList(zone: string, kind: ListKind): ListDefinition {
  return { zone, name: zone, kind, ipv6: true, decode: table({}, {}, '127.255.255.') };
}

/** The configured slot decides which subjects a zone is asked about, even for a list we know. */
export function listFor(zone: string, kind: ListKind): ListDefinition {
  const normalised = zone.toLowerCase().replace(/\.$/, '');
  const known = knownLists.find((list) => list.zone === normalised);
  return known ? { ...known, kind } : genericList(normalised, kind);
}
