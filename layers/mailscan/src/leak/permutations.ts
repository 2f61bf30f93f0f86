import { domainToASCII, domainToUnicode } from 'node:url';
import { parse } from 'tldts';
import { DEFAULT_DICTIONARY, DEFAULT_SWAP_TLDS, HOMOGLYPHS, KEYBOARDS, LATIN_TO_CYRILLIC } from './permutation-tables.ts';

/**
 * The lookalike permutation engine: pure, no I/O. Given a domain it generates the names an
 * attacker would register to pass for it, by family. The families and their rules are dnstwist's
 * (which tests compare against), so a name dnstwist finds for a family is always ours too.
 * Internationalised results (homoglyphs, Cyrillic) are emitted as punycode, the form DNS resolves.
 */
export const FAMILIES = [
  'addition',
  'bitsquatting',
  'cyrillic',
  'homoglyph',
  'hyphenation',
  'insertion',
  'omission',
  'repetition',
  'replacement',
  'subdomain',
  'transposition',
  'vowel-swap',
  'dictionary',
  'tld-swap',
  'various',
] as const;
export type Family = (typeof FAMILIES)[number];

export interface Permutation {
  /** The lookalike as DNS sees it (punycode for internationalised names). */
  domain: string;
  /** The first family (in FAMILIES order) that produced it. */
  family: Family;
  /** The Unicode form when it differs from `domain` (IDN homoglyphs). */
  unicode?: string;
}

export interface PermutationOptions {
  /** TLDs for tld-swap; DEFAULT_SWAP_TLDS when absent. */
  tlds?: readonly string[];
  /** Words for the dictionary family; DEFAULT_DICTIONARY when absent. */
  dictionary?: readonly string[];
  /** Only these families (all by default). */
  families?: readonly Family[];
}

/** A domain cut as a registrar sees it: `sub.` + `name` + `.suffix`. */
export interface DomainParts {
  subdomain: string;
  name: string;
  suffix: string;
}

export function splitDomain(domain: string): DomainParts {
  const ascii = domain.toLowerCase().replace(/\.$/, '');
  const parsed = parse(ascii, { allowPrivateDomains: false });
  const suffix = parsed.publicSuffix ?? ascii.split('.').slice(-1)[0];
  const registrable = parsed.domain ?? ascii;
  const name = registrable.slice(0, registrable.length - suffix.length - 1);
  const subdomain = parsed.subdomain ?? '';
  return { subdomain, name: domainToUnicode(name) || name, suffix };
}

const BIT_MASKS = [1, 2, 4, 8, 16, 32, 64, 128];
const HOSTNAME_CHARS = new Set('abcdefghijklmnopqrstuvwxyz0123456789-');
const VOWELS = 'aeiou';
/** dnstwist's VALID_FQDN_REGEX: the shape a registrable lookalike must have. */
const VALID_FQDN = /^(?=.{4,253}$)((?!-)[a-z0-9-]{1,63}(?<!-)\.)+[a-z0-9-]{2,63}$/i;

type Generator = (name: string, options: Required<Pick<PermutationOptions, 'dictionary'>>) => Iterable<string>;

function* addition(name: string): Iterable<string> {
  for (const c of '0123456789abcdefghijklmnopqrstuvwxyz') yield name + c;
}

function* bitsquatting(name: string): Iterable<string> {
  const chars = [...name];
  for (const [i, c] of chars.entries()) {
    for (const mask of BIT_MASKS) {
      const flipped = String.fromCodePoint((c.codePointAt(0) ?? 0) ^ mask);
      if (HOSTNAME_CHARS.has(flipped)) yield [...chars.slice(0, i), flipped, ...chars.slice(i + 1)].join('');
    }
  }
}

function* cyrillic(name: string): Iterable<string> {
  const swapped = [...name].map((c) => LATIN_TO_CYRILLIC[c] ?? c);
  // Only a full swap reads as the original; a mix of scripts is refused by browsers' IDN display rules.
  if (swapped.every((c, i) => c !== [...name][i])) yield swapped.join('');
}

/** Replaces every occurrence of one character inside each window, then again on each result. */
function homoglyphRound(name: string): Set<string> {
  const out = new Set<string>();
  const chars = [...name];
  for (let width = 1; width < chars.length; width += 1) {
    for (let i = 0; i + width <= chars.length; i += 1) {
      const pre = chars.slice(0, i).join('');
      const window = chars.slice(i, i + width);
      const suf = chars.slice(i + width).join('');
      for (const c of new Set(window)) {
        for (const glyph of HOMOGLYPHS[c] ?? []) out.add(pre + window.map((w) => (w === c ? glyph : w)).join('') + suf);
      }
    }
  }
  return out;
}

function homoglyph(name: string): Iterable<string> {
  const first = homoglyphRound(name);
  const all = new Set(first);
  for (const variant of first) for (const second of homoglyphRound(variant)) all.add(second);
  return all;
}

function* hyphenation(name: string): Iterable<string> {
  for (let i = 1; i < name.length; i += 1) yield `${name.slice(0, i)}-${name.slice(i)}`;
}

function* insertion(name: string): Iterable<string> {
  for (let i = 1; i < name.length - 1; i += 1) {
    const [pre, c, suf] = [name.slice(0, i), name[i], name.slice(i + 1)];
    for (const keyboard of KEYBOARDS) {
      for (const near of keyboard[c] ?? '') {
        yield pre + near + c + suf;
        yield pre + c + near + suf;
      }
    }
  }
}

function* omission(name: string): Iterable<string> {
  for (let i = 0; i < name.length; i += 1) yield name.slice(0, i) + name.slice(i + 1);
}

function* repetition(name: string): Iterable<string> {
  for (let i = 0; i < name.length; i += 1) yield name.slice(0, i) + name[i] + name.slice(i);
}

function* replacement(name: string): Iterable<string> {
  for (let i = 0; i < name.length; i += 1) {
    for (const keyboard of KEYBOARDS) for (const near of keyboard[name[i]] ?? '') yield name.slice(0, i) + near + name.slice(i + 1);
  }
}

function* subdomain(name: string): Iterable<string> {
  for (let i = 1; i < name.length - 1; i += 1) {
    if (!'-.'.includes(name[i]) && !'-.'.includes(name[i - 1])) yield `${name.slice(0, i)}.${name.slice(i)}`;
  }
}

function* transposition(name: string): Iterable<string> {
  for (let i = 0; i < name.length - 1; i += 1) yield name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
}

function* vowelSwap(name: string): Iterable<string> {
  for (let i = 0; i < name.length; i += 1) {
    if (VOWELS.includes(name[i])) for (const vowel of VOWELS) yield name.slice(0, i) + vowel + name.slice(i + 1);
  }
}

function* dictionary(name: string, { dictionary: words }: { dictionary: readonly string[] }): Iterable<string> {
  for (const word of words) {
    if (name.startsWith(word) && name.endsWith(word)) continue;
    yield* [`${name}-${word}`, name + word, `${word}-${name}`, word + name];
  }
  if (name.includes('-')) {
    const parts = name.split('-');
    for (const word of words) yield* [`${parts.slice(0, -1).join('-')}-${word}`, `${word}-${parts.slice(1).join('-')}`];
  }
}

const NAME_FAMILIES: Partial<Record<Family, Generator>> = {
  addition,
  bitsquatting,
  cyrillic,
  homoglyph,
  hyphenation,
  insertion,
  omission,
  repetition,
  replacement,
  subdomain,
  transposition,
  'vowel-swap': vowelSwap,
  dictionary,
};

/** Names of one family, whole (subdomain kept), before punycode and validity filtering. */
function rawFamily(
  family: Family,
  parts: DomainParts,
  options: Required<Pick<PermutationOptions, 'dictionary' | 'tlds'>>,
): Iterable<string> {
  const { subdomain: sub, name, suffix } = parts;
  const join = (...labels: string[]): string => labels.filter((label) => label !== '').join('.');
  const generator = NAME_FAMILIES[family];
  if (generator) return [...generator(name, options)].map((variant) => join(sub, variant, suffix));
  if (family === 'tld-swap') return options.tlds.filter((tld) => tld !== suffix).map((tld) => join(sub, name, tld));
  // various: suffix games dnstwist calls "various".
  const out: string[] = [];
  if (suffix.includes('.')) {
    out.push(join(sub, name, suffix.split('.').slice(-1)[0]), join(sub, name + suffix));
  } else {
    out.push(join(sub, name + suffix, suffix));
    if (suffix !== 'com') out.push(join(sub, `${name}-${suffix}`, 'com'));
  }
  if (sub !== '') {
    out.push(
      join(sub + name, suffix),
      join(sub.replaceAll('.', '') + name, suffix),
      join(`${sub}-${name}`, suffix),
      join(`${sub.replaceAll('.', '-')}-${name}`, suffix),
    );
  }
  return out;
}

/** The punycode form of a generated name, or null when it is not a name anyone can register. */
function registrableForm(candidate: string): string | null {
  const ascii = domainToASCII(candidate);
  return ascii !== '' && VALID_FQDN.test(ascii) ? ascii.toLowerCase() : null;
}

/** Every family's names separately (a name may appear under several), without the original. */
export function permutationsByFamily(domain: string, options: PermutationOptions = {}): Map<Family, Set<string>> {
  const parts = splitDomain(domain);
  const original = registrableForm(domain);
  const resolved = { tlds: options.tlds ?? DEFAULT_SWAP_TLDS, dictionary: options.dictionary ?? DEFAULT_DICTIONARY };
  const byFamily = new Map<Family, Set<string>>();
  for (const family of options.families ?? FAMILIES) {
    const names = new Set<string>();
    for (const candidate of rawFamily(family, parts, resolved)) {
      const ascii = registrableForm(candidate);
      if (ascii !== null && ascii !== original) names.add(ascii);
    }
    byFamily.set(family, names);
  }
  return byFamily;
}

/** Every lookalike once, tagged with the first family that produced it, in a stable order. */
export function permute(domain: string, options: PermutationOptions = {}): Permutation[] {
  const seen = new Map<string, Permutation>();
  for (const [family, names] of permutationsByFamily(domain, options)) {
    for (const name of [...names].sort()) {
      if (seen.has(name)) continue;
      const unicode = name.includes('xn--') ? domainToUnicode(name) : name;
      seen.set(name, { domain: name, family, ...(unicode !== name ? { unicode } : {}) });
    }
  }
  return [...seen.values()];
}
