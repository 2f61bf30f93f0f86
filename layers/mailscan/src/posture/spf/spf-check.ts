import { finding, type ReportFinding } from '../../catalogue.ts';
import type { Resolver } from '../../../../../lib/dns/resolver.ts';
import type { CheckError } from '../../reputation/context.ts';
import { expandSpf } from './spf-expand.ts';
import { isSpfRecord } from './spf-record.ts';
import type { SpfNode, SpfTermNode, VoidFamily } from './spf-tree.ts';

export const SPF_LOOKUP_LIMIT = 10;
export const SPF_VOID_LOOKUP_LIMIT = 2;

export interface SpfData {
  status: 'ok' | 'none' | 'permerror' | 'temperror';
  /** The record evaluated (the first when there are several). */
  record: string | null;
  /** Every v=spf1 record the domain publishes. */
  records: string[];
  lookups: number;
  lookup_limit: number;
  /** The worse of the two families: an IPv4 and an IPv6 sender can meet different void lookups. */
  void_lookups: number;
  void_lookups_by_family: Record<VoidFamily, number>;
  void_lookup_limit: number;
  /** The all term that ends evaluation, following redirects: `-all`, `~all`, `?all`, `+all` or null. */
  all: string | null;
  /**
   * Whether `all` is what evaluation ends with: false when a redirect could not be followed (no
   * answer, a macro that needs the message, a bound), so a null `all` is then "unknown", not "none".
   */
  all_known: boolean;
  /** A bound (terms per record, queries, records) stopped the expansion: counts are lower bounds. */
  expansion_truncated: boolean;
  loops: string[];
  duplicate_includes: string[];
  macros: string[];
  /** Why a receiver would return permerror. */
  permerrors: string[];
  tree: SpfNode | null;
}

export interface SpfCheck {
  data: SpfData;
  findings: ReportFinding[];
  errors: CheckError[];
  /** The count for the reputation surface's lookup-limit rule; null when there is no record. */
  lookupsForLimit: number | null;
  /** The domain's own TXT query was answered (found or absent), whatever it contained. */
  answered: boolean;
}

export async function checkSpf(domain: string, resolver: Resolver): Promise<SpfCheck> {
  const [{ tree, truncated }, txt] = await Promise.all([expandSpf(domain, resolver), resolver.query(domain, 'TXT')]);
  const records = txt.status === 'found' ? txt.records.filter(isSpfRecord) : [];
  const walk = walkTree(tree);
  const errors = walk.temperrors.map((message) => ({ surface: 'posture', check: 'spf', message }));
  const permerrors = [...(tree.status === 'permerror' && tree.error ? [tree.error] : []), ...walk.permerrors];
  if (tree.lookups > SPF_LOOKUP_LIMIT) permerrors.push(`${tree.lookups} DNS lookups (limit ${SPF_LOOKUP_LIMIT})`);
  const byFamily = { ipv4: tree.void_lookups_ipv4 ?? tree.void_lookups, ipv6: tree.void_lookups_ipv6 ?? tree.void_lookups };
  // The record's status is what an IPv4 sender gets; an IPv6 sender's void problem is reported beside it (the finding, the counts).
  if (byFamily.ipv4 > SPF_VOID_LOOKUP_LIMIT)
    permerrors.push(`${byFamily.ipv4} void lookups for ${FAMILY_NAMES.ipv4} senders (limit ${SPF_VOID_LOOKUP_LIMIT})`);
  const all = effectiveAll(tree);
  const data: SpfData = {
    status:
      tree.status === 'temperror' || tree.status === 'none'
        ? tree.status
        : permerrors.length > 0
          ? 'permerror'
          : errors.length > 0
            ? 'temperror'
            : 'ok',
    record: tree.record,
    records,
    lookups: tree.lookups,
    lookup_limit: SPF_LOOKUP_LIMIT,
    void_lookups: Math.max(byFamily.ipv4, byFamily.ipv6),
    void_lookups_by_family: byFamily,
    void_lookup_limit: SPF_VOID_LOOKUP_LIMIT,
    all: all.all,
    all_known: all.known,
    expansion_truncated: truncated,
    loops: walk.loops,
    duplicate_includes: walk.duplicates,
    macros: walk.macros,
    permerrors,
    tree: tree.status === 'none' || tree.status === 'temperror' ? null : tree,
  };
  // A loop never ends before the limit: a receiver spends its 10 lookups and fails (§4.6.4).
  const lookupsForLimit = tree.record === null ? null : walk.loops.length > 0 ? Math.max(tree.lookups, SPF_LOOKUP_LIMIT + 1) : tree.lookups;
  return { data, findings: spfFindings(domain, data), errors, lookupsForLimit, answered: txt.status !== 'unknown' };
}

function spfFindings(domain: string, data: SpfData): ReportFinding[] {
  const findings: ReportFinding[] = [];
  if (data.status === 'none') {
    findings.push(finding('mailscan.spf.missing', 'high', `${domain} publishes no SPF record.`, { domain }));
    return findings;
  }
  if (data.records.length > 1) {
    findings.push(
      finding(
        'mailscan.spf.multiple_records',
        'high',
        `${domain} publishes ${data.records.length} SPF records; receivers return permerror.`,
        { domain, records: data.records },
      ),
    );
  }
  // Only a record that parsed has a meaningful all, and only when evaluation reached it: a redirect
  // that got no answer or could not be followed says nothing about the all term (temperror or unknown).
  if (data.tree?.status === 'ok' && data.records.length === 1 && data.status !== 'temperror' && data.all_known) {
    if (data.all === '+all')
      findings.push(
        finding('mailscan.spf.permissive_all', 'high', 'The SPF record ends in +all: any host may send as the domain.', {
          domain,
          record: data.record,
          all: data.all,
        }),
      );
    else if (data.all === '?all')
      findings.push(
        finding('mailscan.spf.permissive_all', 'medium', 'The SPF record ends in ?all: unlisted hosts get a neutral result.', {
          domain,
          record: data.record,
          all: data.all,
        }),
      );
    else if (data.all === null)
      findings.push(
        finding('mailscan.spf.permissive_all', 'medium', 'The SPF record has no all term: unlisted hosts get a neutral result.', {
          domain,
          record: data.record,
          all: null,
        }),
      );
  }
  if (data.void_lookups > SPF_VOID_LOOKUP_LIMIT) {
    const { ipv4, ipv6 } = data.void_lookups_by_family;
    const family = ipv4 === ipv6 ? 'both' : ipv4 > ipv6 ? 'ipv4' : 'ipv6';
    const senders = family === 'both' ? 'any sender' : `${FAMILY_NAMES[family]} senders`;
    findings.push(
      finding(
        'mailscan.spf.void_lookup_limit',
        'medium',
        `Evaluating the SPF record for ${senders} causes ${data.void_lookups} void lookups (limit ${SPF_VOID_LOOKUP_LIMIT}).`,
        {
          domain,
          void_lookups: data.void_lookups,
          family,
          void_lookups_by_family: data.void_lookups_by_family,
          limit: SPF_VOID_LOOKUP_LIMIT,
        },
      ),
    );
  }
  return findings;
}

const FAMILY_NAMES: Record<VoidFamily, string> = { ipv4: 'IPv4', ipv6: 'IPv6' };

/**
 * The all that ends evaluation: the record's own, else the redirect target's. Known only when the
 * redirect's target was evaluated (status ok): a target that timed out, failed or was not followed
 * leaves it unknown, which is not "no all term".
 */
function effectiveAll(node: SpfNode): { all: string | null; known: boolean } {
  const all = node.terms.find((term) => /^[+\-~?]?all$/i.test(term.term));
  if (all) return { all: /^[+\-~?]/.test(all.term) ? all.term.toLowerCase() : `+${all.term.toLowerCase()}`, known: true };
  const redirect = node.terms.find((term) => /^redirect=/i.test(term.term));
  if (!redirect) return { all: null, known: true };
  if (redirect.child?.status !== 'ok') return { all: null, known: false };
  return effectiveAll(redirect.child);
}

interface TreeWalk {
  loops: string[];
  duplicates: string[];
  macros: string[];
  permerrors: string[];
  temperrors: string[];
}

/** Depth-first in record order, so "duplicate" marks the second and later inclusions. */
function walkTree(root: SpfNode): TreeWalk {
  const walk: TreeWalk = { loops: [], duplicates: [], macros: [], permerrors: [], temperrors: [] };
  const included = new Set<string>();
  if (root.status === 'temperror' && root.error) walk.temperrors.push(root.error);
  const visit = (node: SpfNode) => {
    for (const term of node.terms) {
      visitTerm(term, node, walk, included);
      if (term.child) {
        if (term.child.status === 'temperror' && term.child.error) walk.temperrors.push(`${term.child.domain}: ${term.child.error}`);
        if (term.child.status === 'permerror' && term.child.error) walk.permerrors.push(`${term.child.domain}: ${term.child.error}`);
        visit(term.child);
      }
    }
  };
  visit(root);
  return walk;
}

function visitTerm(term: SpfTermNode, node: SpfNode, walk: TreeWalk, included: Set<string>): void {
  if (term.loop && term.note) {
    walk.loops.push(term.note.replace(/^loop: /, ''));
    walk.permerrors.push(`include loop in ${node.domain}: ${term.term}`);
  }
  if (term.macro) walk.macros.push(term.term);
  if (term.error?.startsWith('temperror')) walk.temperrors.push(`${node.domain}: ${term.term}: ${term.error}`);
  else if (term.error) walk.permerrors.push(`${node.domain}: ${term.term}: ${term.error}`);
  if (term.child && /^include:/i.test(term.term)) {
    const target = term.child.domain;
    if (included.has(target)) {
      term.duplicate = true;
      if (!walk.duplicates.includes(target)) walk.duplicates.push(target);
    }
    included.add(target);
  }
}
