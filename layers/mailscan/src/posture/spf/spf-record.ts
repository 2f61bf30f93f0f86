/**
 * SPF record syntax (RFC 7208 §4.6, §5, §6, §7). Parsing is pure: a malformed record is a value
 * (`ok: false`, which evaluation turns into permerror), never an exception.
 */
export type Qualifier = '+' | '-' | '~' | '?';
export type MechanismName = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';

export type SpfTerm =
  | { kind: 'mechanism'; text: string; qualifier: Qualifier; name: MechanismName; domain?: string; macro: boolean }
  | { kind: 'modifier'; text: string; name: string; value: string; macro: boolean };

export type ParsedSpf = { ok: true; terms: SpfTerm[] } | { ok: false; error: string };

/** Terms whose evaluation queries DNS and so count against the limit of 10 (§4.6.4); exp does not. */
export const QUERYING_MECHANISMS: ReadonlySet<string> = new Set(['include', 'a', 'mx', 'ptr', 'exists']);

const MECHANISM = /^([+\-~?]?)(all|include|a|mx|ptr|ip4|ip6|exists)(?::([^/]*))?((?:\/\d{1,3})?(?:\/\/\d{1,3})?)$/i;
const MODIFIER = /^([a-z][a-z0-9_.-]*)=(.*)$/i;
const MACRO = /%\{[slodiphcrtv]\d*r?[.\-+,/_=]*\}|%%|%_|%-/gi;

export function isSpfRecord(text: string): boolean {
  return /^v=spf1(?: |$)/i.test(text);
}

export function parseSpf(record: string): ParsedSpf {
  if (!isSpfRecord(record)) return { ok: false, error: 'does not start with v=spf1' };
  const terms: SpfTerm[] = [];
  for (const text of record
    .slice('v=spf1'.length)
    .split(' ')
    .filter((part) => part !== '')) {
    const term = parseTerm(text);
    if (typeof term === 'string') return { ok: false, error: term };
    terms.push(term);
  }
  for (const name of ['redirect', 'exp']) {
    if (terms.filter((term) => term.kind === 'modifier' && term.name === name).length > 1) {
      return { ok: false, error: `more than one ${name}= modifier` };
    }
  }
  return { ok: true, terms };
}

function parseTerm(text: string): SpfTerm | string {
  const mechanism = MECHANISM.exec(text);
  if (mechanism) {
    const qualifier = (mechanism[1] || '+') as Qualifier;
    const name = mechanism[2].toLowerCase() as MechanismName;
    const value = mechanism[3];
    const cidr = mechanism[4] ?? '';
    const problem = checkMechanism(name, value, cidr);
    if (problem) return `${text}: ${problem}`;
    const isAddress = name === 'ip4' || name === 'ip6';
    const domain = value === undefined || isAddress ? undefined : value.toLowerCase();
    return {
      kind: 'mechanism',
      text,
      qualifier,
      name,
      ...(domain === undefined ? {} : { domain }),
      macro: domain !== undefined && hasMacro(domain),
    };
  }
  const modifier = MODIFIER.exec(text);
  if (modifier) {
    const name = modifier[1].toLowerCase();
    const value = modifier[2];
    if ((name === 'redirect' || name === 'exp') && !isDomainSpec(value)) return `${text}: not a domain`;
    return { kind: 'modifier', text, name, value: value.toLowerCase(), macro: hasMacro(value) };
  }
  return `unknown term ${text}`;
}

function checkMechanism(name: MechanismName, value: string | undefined, cidr: string): string | null {
  switch (name) {
    case 'all':
      return value === undefined && cidr === '' ? null : 'all takes no argument';
    case 'include':
    case 'exists':
      if (cidr !== '') return 'no CIDR length allowed';
      return value !== undefined && isDomainSpec(value) ? null : 'needs a domain';
    case 'ptr':
      if (cidr !== '') return 'no CIDR length allowed';
      return value === undefined || isDomainSpec(value) ? null : 'not a domain';
    case 'a':
    case 'mx':
      if (!cidrLengthsValid(cidr)) return 'bad CIDR length';
      return value === undefined || isDomainSpec(value) ? null : 'not a domain';
    case 'ip4':
      return value !== undefined && isIpv4(value) && /^(\/\d{1,2})?$/.test(cidr) && cidrUpTo(cidr, 32) ? null : 'not an IPv4 network';
    case 'ip6':
      return value !== undefined && value.includes(':') && /^(\/\d{1,3})?$/.test(cidr) && cidrUpTo(cidr, 128)
        ? null
        : 'not an IPv6 network';
  }
}

function cidrLengthsValid(cidr: string): boolean {
  const match = /^(?:\/(\d{1,3}))?(?:\/\/(\d{1,3}))?$/.exec(cidr);
  return match !== null && Number(match[1] ?? 0) <= 32 && Number(match[2] ?? 0) <= 128;
}

function cidrUpTo(cidr: string, max: number): boolean {
  return cidr === '' || Number(cidr.slice(1)) <= max;
}

function isIpv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

export function hasMacro(value: string): boolean {
  return value.includes('%');
}

/** A domain-spec: macros allowed, otherwise labels of letters, digits, hyphens and underscores. */
function isDomainSpec(value: string): boolean {
  const withoutMacros = value.replace(MACRO, 'x');
  if (withoutMacros.includes('%')) return false;
  const name = withoutMacros.replace(/\.$/, '');
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => /^[a-z0-9_-]{1,63}$/i.test(label));
}
