import { inParallel } from '../../dns/dependency-depth.ts';
import type { Resolver } from '../../dns/resolver.ts';
import { isSpfRecord, parseSpf, QUERYING_MECHANISMS, type SpfTerm } from './spf-record.ts';
import type { SpfNode, SpfTermNode } from './spf-tree.ts';

/** Bounds on hostile records: the tree stays finite even for includes that fan out and diamond. */
const MAX_NODES = 100;
const MAX_DEPTH = 12;
/** RFC 7208 §4.6.4: an mx term may not need more than 10 address lookups. */
const MAX_MX_HOSTS = 10;

interface Expansion {
  resolver: Resolver;
  nodes: number;
}

/**
 * Expands the SPF record of `domain` completely, as a receiver would in the worst case (no term
 * matches): every include and an effective redirect is followed, a/mx/exists are queried for void
 * lookups, and sibling terms are resolved concurrently. Counting goes on past the limit so the
 * report can show where the lookups go.
 */
export function expandSpf(domain: string, resolver: Resolver): Promise<SpfNode> {
  return expandNode(domain, [domain], { resolver, nodes: 0 });
}

async function expandNode(domain: string, path: string[], expansion: Expansion): Promise<SpfNode> {
  expansion.nodes += 1;
  const answer = await expansion.resolver.query(domain, 'TXT');
  const txt = answer.status === 'found' ? 'found' : answer.status === 'absent' ? answer.reason : 'unknown';
  const node: SpfNode = { domain, record: null, status: 'none', txt, terms: [], lookups: 0, void_lookups: 0 };
  if (answer.status === 'unknown') return { ...node, status: 'temperror', error: answer.message };
  const records = answer.status === 'found' ? answer.records.filter(isSpfRecord) : [];
  if (records.length === 0) return node;
  node.record = records[0]!;
  if (records.length > 1) return { ...node, status: 'permerror', error: `${records.length} SPF records (RFC 7208 §4.5)` };
  const parsed = parseSpf(node.record);
  if (!parsed.ok) return { ...node, status: 'permerror', error: parsed.error };

  const hasAll = parsed.terms.some((term) => term.kind === 'mechanism' && term.name === 'all');
  node.terms = await inParallel(parsed.terms, (term) => expandTerm(term, domain, path, hasAll, expansion));
  node.lookups = sum(node.terms.map((term) => term.lookups));
  node.void_lookups = sum(node.terms.map((term) => (term.void_lookup ? 1 : 0) + (term.child?.void_lookups ?? 0)));
  node.status = 'ok';
  return node;
}

async function expandTerm(term: SpfTerm, domain: string, path: string[], hasAll: boolean, expansion: Expansion): Promise<SpfTermNode> {
  if (term.kind === 'modifier') {
    if (term.name !== 'redirect') return { term: term.text, lookups: 0 };
    // §6.1: redirect is ignored when the record has an all mechanism anywhere.
    if (hasAll) return { term: term.text, lookups: 0, note: 'ignored: the record has an all mechanism' };
    return followRecord(term.text, term.value, term.macro, path, expansion);
  }
  if (!QUERYING_MECHANISMS.has(term.name)) return { term: term.text, lookups: 0 };
  if (term.macro) return { term: term.text, lookups: 1, macro: true, note: 'macro: counted, not followed' };
  const target = term.domain ?? domain;
  switch (term.name) {
    case 'include':
      return followRecord(term.text, target, false, path, expansion);
    case 'ptr':
      return { term: term.text, lookups: 1, note: 'ptr is deprecated (RFC 7208 §5.5) and needs the sender IP' };
    case 'exists':
      return voidCheck(term.text, await expansion.resolver.query(target, 'A'));
    case 'a': {
      const [v4, v6] = await Promise.all([expansion.resolver.query(target, 'A'), expansion.resolver.query(target, 'AAAA')]);
      if (v4.status === 'found' || v6.status === 'found') return { term: term.text, lookups: 1 };
      return voidCheck(term.text, v4.status === 'unknown' ? v4 : v6);
    }
    case 'mx': {
      const mx = await expansion.resolver.query(target, 'MX');
      if (mx.status === 'found' && mx.records.length > MAX_MX_HOSTS) {
        return {
          term: term.text,
          lookups: 1,
          error: `${mx.records.length} MX hosts: more than ${MAX_MX_HOSTS} address lookups (permerror)`,
        };
      }
      return voidCheck(term.text, mx);
    }
    default:
      return { term: term.text, lookups: 1 };
  }
}

function voidCheck(text: string, answer: Awaited<ReturnType<Resolver['query']>>): SpfTermNode {
  if (answer.status === 'absent') return { term: text, lookups: 1, void_lookup: true };
  if (answer.status === 'unknown') return { term: text, lookups: 1, error: `temperror: ${answer.message}` };
  return { term: text, lookups: 1 };
}

/** include and redirect: one lookup for the TXT query plus everything the target's record spends. */
async function followRecord(text: string, target: string, macro: boolean, path: string[], expansion: Expansion): Promise<SpfTermNode> {
  if (macro) return { term: text, lookups: 1, macro: true, note: 'macro: counted, not followed' };
  if (path.includes(target)) return { term: text, lookups: 1, loop: true, note: `loop: ${[...path, target].join(' -> ')}` };
  if (path.length > MAX_DEPTH || expansion.nodes >= MAX_NODES)
    return { term: text, lookups: 1, note: 'not expanded: expansion bound reached' };
  const child = await expandNode(target, [...path, target], expansion);
  const node: SpfTermNode = { term: text, lookups: 1 + child.lookups, child };
  if (child.status === 'none') {
    node.error = `${target} has no SPF record (permerror)`;
    if (child.txt !== 'found') node.void_lookup = true;
  }
  return node;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
