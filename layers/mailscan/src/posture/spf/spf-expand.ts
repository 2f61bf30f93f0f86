import { inParallel } from '../../dns/dependency-depth.ts';
import type { DnsAnswer, MxRecord, RecordType, Resolver } from '../../../../../lib/dns/resolver.ts';
import { expandDomainMacros } from './spf-macro.ts';
import { isSpfRecord, parseSpf, QUERYING_MECHANISMS, type SpfTerm } from './spf-record.ts';
import type { SpfNode, SpfTermNode, VoidFamily } from './spf-tree.ts';

/** Bounds on hostile records: the tree stays finite even for includes that fan out and diamond. */
const MAX_NODES = 100;
const MAX_DEPTH = 12;
/** RFC 7208 §4.6.4: an mx term may not need more than 10 address lookups. */
const MAX_MX_HOSTS = 10;
/**
 * Terms of one record that are listed and evaluated; the rest are counted by syntax only. A
 * receiver stops at the 11th lookup (§4.6.4), so a record this long is over the limit anyway.
 */
export const MAX_TERMS_PER_RECORD = 50;
/**
 * DNS queries one SPF expansion may send. A record within the limits needs at most ~40 (10 TXT, and
 * A+AAAA or MX per term); past the budget terms are counted without being queried, so 99 includes
 * of 1,000 `a` terms cost at most this many queries instead of 200,000.
 */
export const MAX_SPF_QUERIES = 150;

interface Expansion {
  resolver: Resolver;
  nodes: number;
  queries: number;
  /** Set when a bound stopped the expansion: the counts are then lower bounds. */
  truncated: boolean;
}

const BOTH: VoidFamily[] = ['ipv4', 'ipv6'];

/**
 * Expands the SPF record of `domain` completely, as a receiver would in the worst case (no term
 * matches): every include and an effective redirect is followed, a/mx/exists are queried for void
 * lookups, and sibling terms are resolved concurrently. Counting goes on past the limit so the
 * report can show where the lookups go, within the bounds above.
 */
export async function expandSpf(domain: string, resolver: Resolver): Promise<{ tree: SpfNode; truncated: boolean }> {
  const expansion: Expansion = { resolver, nodes: 0, queries: 0, truncated: false };
  const tree = await expandNode(domain, [domain], expansion);
  return { tree, truncated: expansion.truncated };
}

/** Queries within the budget; null when the budget is spent (the term is then counted, not queried). */
function budgeted<T extends RecordType>(expansion: Expansion, name: string, types: T[]): Promise<DnsAnswer<T>[]> | null {
  if (expansion.queries + types.length > MAX_SPF_QUERIES) {
    expansion.truncated = true;
    return null;
  }
  expansion.queries += types.length;
  return Promise.all(types.map((type) => expansion.resolver.query(name, type)));
}

async function expandNode(domain: string, path: string[], expansion: Expansion): Promise<SpfNode> {
  expansion.nodes += 1;
  const [answer] = (await budgeted(expansion, domain, ['TXT'])) ?? [null];
  const node: SpfNode = { domain, record: null, status: 'none', txt: 'unknown', terms: [], lookups: 0, void_lookups: 0 };
  if (answer === null) return { ...node, status: 'temperror', error: `not queried: the SPF query budget (${MAX_SPF_QUERIES}) is spent` };
  node.txt = answer.status === 'found' ? 'found' : answer.status === 'absent' ? answer.reason : 'unknown';
  if (answer.status === 'unknown') return { ...node, status: 'temperror', error: answer.message };
  const records = answer.status === 'found' ? answer.records.filter(isSpfRecord) : [];
  if (records.length === 0) return node;
  node.record = records[0]!;
  if (records.length > 1) return { ...node, status: 'permerror', error: `${records.length} SPF records (RFC 7208 §4.5)` };
  const parsed = parseSpf(node.record);
  if (!parsed.ok) return { ...node, status: 'permerror', error: parsed.error };

  // §5.1: evaluation ends at all; the terms after it are never evaluated, and redirect is ignored.
  const allAt = parsed.terms.findIndex((term) => term.kind === 'mechanism' && term.name === 'all');
  const evaluated = allAt === -1 ? parsed.terms : parsed.terms.slice(0, allAt + 1);
  const listed = evaluated.slice(0, MAX_TERMS_PER_RECORD);
  node.terms = await inParallel(listed, (term) => expandTerm(term, domain, path, allAt !== -1, expansion));
  if (allAt !== -1 && parsed.terms.length > allAt + 1) {
    const after = parsed.terms.slice(allAt + 1).map((term) => term.text);
    node.terms.push({ term: after.join(' '), lookups: 0, note: 'after all: never evaluated (RFC 7208 §5.1)' });
  }
  const unlisted = evaluated.slice(MAX_TERMS_PER_RECORD);
  if (unlisted.length > 0) {
    expansion.truncated = true;
    node.terms.push({
      term: `… ${unlisted.length} more terms`,
      lookups: unlisted.filter(isQuerying).length,
      note: `not listed or queried: more than ${MAX_TERMS_PER_RECORD} terms; each DNS-querying term counted once`,
    });
  }
  node.lookups = sum(node.terms.map((term) => term.lookups));
  const voids = (family: VoidFamily) =>
    sum(node.terms.map((term) => (voidFor(term).includes(family) ? 1 : 0) + (term.voids?.[family] ?? 0) + voidsOf(term.child, family)));
  node.void_lookups_ipv4 = voids('ipv4');
  node.void_lookups_ipv6 = voids('ipv6');
  node.void_lookups = Math.max(node.void_lookups_ipv4, node.void_lookups_ipv6);
  node.status = 'ok';
  return node;
}

function isQuerying(term: SpfTerm): boolean {
  return term.kind === 'mechanism' ? QUERYING_MECHANISMS.has(term.name) : term.name === 'redirect';
}

/** The families a term is a void lookup for: `void_lookup` is both, `void_for` one. */
export function voidFor(term: SpfTermNode): VoidFamily[] {
  return term.void_lookup ? BOTH : (term.void_for ?? []);
}

function voidsOf(node: SpfNode | undefined, family: VoidFamily): number {
  if (!node) return 0;
  return family === 'ipv4' ? (node.void_lookups_ipv4 ?? node.void_lookups) : (node.void_lookups_ipv6 ?? node.void_lookups);
}

async function expandTerm(term: SpfTerm, domain: string, path: string[], hasAll: boolean, expansion: Expansion): Promise<SpfTermNode> {
  if (term.kind === 'modifier') {
    if (term.name !== 'redirect') return { term: term.text, lookups: 0 };
    // §6.1: redirect is ignored when the record has an all mechanism anywhere.
    if (hasAll) return { term: term.text, lookups: 0, note: 'ignored: the record has an all mechanism' };
    const target = term.macro ? expandDomainMacros(term.value, domain) : term.value;
    return followRecord(term.text, target, term.macro, path, expansion);
  }
  if (!QUERYING_MECHANISMS.has(term.name)) return { term: term.text, lookups: 0 };
  // §7.3: %{d} is the domain being checked, so it is expanded and followed; other macros need the message.
  const target = term.domain === undefined ? domain : term.macro ? expandDomainMacros(term.domain, domain) : term.domain;
  if (target === null) return { term: term.text, lookups: 1, macro: true, note: 'macro: counted, not followed (it needs the message)' };
  const expanded = term.macro ? { macro: true as const, expanded: target } : {};
  switch (term.name) {
    case 'include':
      return { ...(await followRecord(term.text, target, false, path, expansion)), ...expanded };
    case 'ptr':
      return { term: term.text, lookups: 1, note: 'ptr is deprecated (RFC 7208 §5.5) and needs the sender IP', ...expanded };
    case 'exists': {
      // §5.7: exists asks for A records whatever the sender's family.
      const answers = await budgeted(expansion, target, ['A']);
      return answers ? { ...voidCheck(term.text, answers[0]), ...expanded } : notQueried(term.text);
    }
    case 'a': {
      const answers = await budgeted(expansion, target, ['A', 'AAAA']);
      return answers ? { ...addressTerm(term.text, answers[0], answers[1]), ...expanded } : notQueried(term.text);
    }
    case 'mx': {
      const answers = await budgeted(expansion, target, ['MX']);
      if (!answers) return notQueried(term.text);
      const mx = answers[0];
      if (mx.status === 'found' && mx.records.length > MAX_MX_HOSTS) {
        return {
          term: term.text,
          lookups: 1,
          error: `${mx.records.length} MX hosts: more than ${MAX_MX_HOSTS} address lookups (permerror)`,
        };
      }
      const node = { ...voidCheck(term.text, mx), ...expanded };
      return mx.status === 'found' ? { ...node, ...(await mxHostVoids(mx.records, expansion)) } : node;
    }
    default:
      return { term: term.text, lookups: 1 };
  }
}

/**
 * §5.4: an mx term looks up each MX host's addresses of the sender's family, and every lookup that
 * comes back empty is a void lookup (§4.6.4), as pyspf counts them: hosts with A and no AAAA cost an
 * IPv6 sender one void lookup each.
 */
async function mxHostVoids(hosts: readonly MxRecord[], expansion: Expansion): Promise<Pick<SpfTermNode, 'voids' | 'error' | 'note'>> {
  const voids: Record<VoidFamily, number> = { ipv4: 0, ipv6: 0 };
  for (const host of hosts) {
    const answers = await budgeted(expansion, host.exchange, ['A', 'AAAA']);
    if (!answers) return { note: `MX hosts not all queried: the SPF query budget (${MAX_SPF_QUERIES}) is spent` };
    const unknown = answers.find((answer) => answer.status === 'unknown');
    if (unknown?.status === 'unknown') return { error: `temperror: ${host.exchange}: ${unknown.message}` };
    if (answers[0].status === 'absent') voids.ipv4 += 1;
    if (answers[1].status === 'absent') voids.ipv6 += 1;
  }
  return voids.ipv4 + voids.ipv6 > 0 ? { voids } : {};
}

function notQueried(text: string): SpfTermNode {
  return { term: text, lookups: 1, note: `counted, not queried: the SPF query budget (${MAX_SPF_QUERIES}) is spent` };
}

/**
 * An `a` term is evaluated per sender family (§5.3): an IPv4 sender asks for A, an IPv6 sender for
 * AAAA. A name with only AAAA records is a void lookup for every IPv4 sender, and the reverse.
 */
function addressTerm(text: string, v4: DnsAnswer<'A'>, v6: DnsAnswer<'AAAA'>): SpfTermNode {
  const unknown = [v4, v6].find((answer) => answer.status === 'unknown');
  if (unknown?.status === 'unknown') return { term: text, lookups: 1, error: `temperror: ${unknown.message}` };
  const families = [...(v4.status === 'absent' ? ['ipv4' as const] : []), ...(v6.status === 'absent' ? ['ipv6' as const] : [])];
  if (families.length === 2) return { term: text, lookups: 1, void_lookup: true };
  if (families.length === 1) return { term: text, lookups: 1, void_for: families };
  return { term: text, lookups: 1 };
}

function voidCheck(text: string, answer: DnsAnswer<RecordType>): SpfTermNode {
  if (answer.status === 'absent') return { term: text, lookups: 1, void_lookup: true };
  if (answer.status === 'unknown') return { term: text, lookups: 1, error: `temperror: ${answer.message}` };
  return { term: text, lookups: 1 };
}

/** include and redirect: one lookup for the TXT query plus everything the target's record spends. */
async function followRecord(
  text: string,
  target: string | null,
  macro: boolean,
  path: string[],
  expansion: Expansion,
): Promise<SpfTermNode> {
  if (target === null) return { term: text, lookups: 1, macro: true, note: 'macro: counted, not followed (it needs the message)' };
  const expanded = macro ? { macro: true as const, expanded: target } : {};
  if (path.includes(target)) return { term: text, lookups: 1, loop: true, note: `loop: ${[...path, target].join(' -> ')}`, ...expanded };
  if (path.length > MAX_DEPTH || expansion.nodes >= MAX_NODES || expansion.queries >= MAX_SPF_QUERIES) {
    expansion.truncated = true;
    return { term: text, lookups: 1, note: 'not expanded: expansion bound reached', ...expanded };
  }
  const child = await expandNode(target, [...path, target], expansion);
  const node: SpfTermNode = { term: text, lookups: 1 + child.lookups, child, ...expanded };
  if (child.status === 'none') {
    node.error = `${target} has no SPF record (permerror)`;
    if (child.txt !== 'found') node.void_lookup = true;
  }
  return node;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
