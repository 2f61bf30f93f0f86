import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { PostureSurface } from '../posture/run-posture.ts';

/**
 * Whether the resolver itself works. Every recursive resolver answers the root zone's NS set; one
 * that is unreachable, refuses, or answers NXDOMAIN even for the root cannot tell us anything about
 * any domain, so its NXDOMAIN for the scanned domain is no evidence that the domain does not exist.
 * Asked only when the domain's own answers are in doubt: it costs a scan that went well nothing.
 */
export async function probeResolver(resolver: Resolver): Promise<{ working: true } | { working: false; why: string }> {
  const root = await resolver.query('.', 'NS');
  if (root.status === 'found') return { working: true };
  if (root.status === 'absent')
    return { working: false, why: `answers ${root.reason === 'nxdomain' ? 'NXDOMAIN' : 'no records'} for the root zone (. NS)` };
  return { working: false, why: `gives no answer for the root zone (. NS): ${root.message}` };
}

/**
 * The posture surface when DNS could not be asked: every component unknown, nothing graded. The
 * checks' own data is not kept, because a broken resolver's NXDOMAIN would read as "no record".
 */
export function unansweredPosture(surface: PostureSurface, message: string): Record<string, unknown> {
  return {
    status: 'error',
    reason: message,
    score: null,
    grade: null,
    score_breakdown: { spf: null, dmarc: null, dkim: null },
    spf: { status: 'temperror', record: null, records: [], lookups: 0, void_lookups: 0, all: null, tree: null },
    dkim: { status: 'temperror', selectors_probed: surface.dkim.selectors_probed, keys: [] },
    dmarc: { status: 'temperror', record: null, source: null, policy: null },
    mx: { status: 'temperror', hosts: [] },
  };
}
