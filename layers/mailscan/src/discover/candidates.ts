/**
 * Candidate addresses of the discover surface (pure): role local parts, addresses found in public
 * data, and addresses built from patterns learned from the personal addresses found (a certificate
 * for "Jane Roe" <jane.roe@example.com> teaches first.last, which is then applied to every other
 * person name found beside it). Each candidate keeps where it came from.
 */
export type CandidateSource = 'ct' | 'soa' | 'dmarc' | 'role' | 'pattern';

export interface Candidate {
  address: string;
  sources: CandidateSource[];
  /** For pattern candidates: the person and the pattern. */
  person?: string;
  pattern?: string;
}

/** Role local parts that organisations commonly have (RFC 2142 plus common practice). */
export const ROLE_LOCAL_PARTS: readonly string[] = [
  'postmaster',
  'abuse',
  'security',
  'admin',
  'administrator',
  'hostmaster',
  'webmaster',
  'info',
  'support',
  'sales',
  'billing',
  'hr',
  'noreply',
  'no-reply',
  'contact',
  'help',
  'it',
  'finance',
  'accounts',
  'marketing',
  'press',
  'jobs',
  'careers',
  'office',
  'legal',
  'privacy',
  'dmarc',
  'root',
  'helpdesk',
  'invoices',
];

/** Local-part patterns, in order of how common they are in organisations. */
export const NAME_PATTERNS: Readonly<Record<string, (first: string, last: string) => string>> = {
  'first.last': (f, l) => `${f}.${l}`,
  'f.last': (f, l) => `${f[0]}.${l}`,
  flast: (f, l) => `${f[0]}${l}`,
  firstlast: (f, l) => `${f}${l}`,
  first_last: (f, l) => `${f}_${l}`,
  'first-last': (f, l) => `${f}-${l}`,
  'last.first': (f, l) => `${l}.${f}`,
  lastf: (f, l) => `${l}${f[0]}`,
  'first.l': (f, l) => `${f}.${l[0]}`,
  first: (f) => f,
};

const ADDRESS = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}@[a-z0-9.-]{1,253}$/;

export function normaliseAddress(text: string): string | null {
  const address = text
    .trim()
    .toLowerCase()
    .replace(/^mailto:/, '');
  return ADDRESS.test(address) && !address.startsWith('.') && !address.includes('..') ? address : null;
}

/** "Jane Roe", "Dr. Jane M. Roe" → {first: jane, last: roe}; null when it does not read as a person. */
export function personName(text: string): { first: string; last: string } | null {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^a-z-]/g, ''))
    .filter((word) => word.length > 0 && !['dr', 'mr', 'mrs', 'ms', 'prof'].includes(word));
  if (words.length < 2 || words.length > 4) return null;
  const first = words[0];
  const last = words[words.length - 1];
  if (first.length < 2 || last.length < 2) return null;
  return { first, last };
}

/** The patterns that turn this person into this local part. */
export function patternsMatching(person: { first: string; last: string }, localPart: string): string[] {
  return Object.entries(NAME_PATTERNS)
    .filter(([, make]) => make(person.first, person.last) === localPart)
    .map(([name]) => name);
}

/** The SOA RNAME as an address: the first unescaped dot is the @ (RFC 1035 §8). */
export function soaAddress(rname: string): string | null {
  const name = rname.replace(/\.$/, '');
  const match = /^((?:[^.\\]|\\.)+)\.(.+)$/.exec(name);
  if (!match) return null;
  return normaliseAddress(`${match[1].replace(/\\(.)/g, '$1')}@${match[2]}`);
}

export interface FoundPerson {
  name: string;
  address: string | null;
}

export interface CandidateInput {
  domain: string;
  /** Addresses found in public data, with their source. */
  found: { address: string; source: CandidateSource }[];
  /** People named in public data, with the address of theirs found there, if any. */
  people: FoundPerson[];
}

/**
 * All candidates at the domain, found ones first, then pattern ones, then roles; each address once
 * with every source that produced it. Addresses at other domains are not candidates.
 */
export function buildCandidates({ domain, found, people }: CandidateInput): { candidates: Candidate[]; patterns: string[] } {
  const byAddress = new Map<string, Candidate>();
  const add = (address: string, source: CandidateSource, extra: Partial<Candidate> = {}): void => {
    if (!address.endsWith(`@${domain}`)) return;
    const existing = byAddress.get(address);
    if (existing) {
      if (!existing.sources.includes(source)) existing.sources.push(source);
      return;
    }
    byAddress.set(address, { address, sources: [source], ...extra });
  };
  for (const { address, source } of found) add(address, source);

  const learned = new Set<string>();
  for (const person of people) {
    const name = personName(person.name);
    if (!name || person.address === null || !person.address.endsWith(`@${domain}`)) continue;
    for (const pattern of patternsMatching(name, person.address.split('@')[0])) learned.add(pattern);
  }
  const patterns = Object.keys(NAME_PATTERNS).filter((pattern) => learned.has(pattern));
  for (const person of people) {
    const name = personName(person.name);
    // A person whose own address was found needs no guess.
    if (!name || person.address?.endsWith(`@${domain}`)) continue;
    for (const pattern of patterns) {
      const local = NAME_PATTERNS[pattern](name.first, name.last);
      const address = normaliseAddress(`${local}@${domain}`);
      if (address) add(address, 'pattern', { person: person.name, pattern });
    }
  }
  for (const local of ROLE_LOCAL_PARTS) add(`${local}@${domain}`, 'role');

  const rank = (candidate: Candidate): number =>
    candidate.sources.some((source) => source !== 'role' && source !== 'pattern') ? 0 : candidate.sources.includes('pattern') ? 1 : 2;
  return { candidates: [...byAddress.values()].sort((a, b) => rank(a) - rank(b)), patterns };
}
