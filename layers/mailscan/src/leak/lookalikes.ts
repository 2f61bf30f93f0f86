import type { DnsAnswer, RecordType, Resolver } from '../../../../lib/dns/resolver.ts';
import { certificatesFor } from '../external/ct-entries.ts';
import { searchCt } from '../external/ct-search.ts';
import type { OptInContext } from '../external/services.ts';
import type { CheckError } from '../reputation/context.ts';
import { mapBounded, settledOnly } from '../../../../lib/concurrency.ts';
import { permute, type Permutation } from './permutations.ts';

export type Registration = 'registered' | 'unregistered' | 'unknown';

export interface ResolvedLookalike extends Permutation {
  state: Registration;
  a: string[];
  aaaa: string[];
  mx: string[];
  ns: string[];
  /** Why the state is unknown. */
  reason?: string;
}

export interface LookalikeCertificate {
  id: number;
  issuer: string | null;
  not_before: string | null;
  not_after: string | null;
  logged_at: string | null;
  source: 'ct' | 'certstream';
}

/** The candidates to resolve: every family, with double homoglyph swaps last so a cap drops them first. */
export function lookalikeCandidates(domain: string, ctx: Pick<OptInContext, 'settings'>): { candidates: Permutation[]; generated: number } {
  const all = permute(domain, { tlds: ctx.settings.lookalike.tlds, dictionary: ctx.settings.lookalike.dictionary });
  const rank = (item: Permutation): number => (item.family === 'homoglyph' ? 1 : 0);
  const ordered = [...all].sort((a, b) => rank(a) - rank(b));
  return { candidates: ordered.slice(0, ctx.settings.lookalike.maxCandidates), generated: all.length };
}

function records<T extends RecordType>(answer: DnsAnswer<T>): string[] {
  if (answer.status !== 'found') return [];
  return answer.records.map((record) =>
    typeof record === 'string'
      ? record
      : 'exchange' in (record as object)
        ? (record as { exchange: string }).exchange
        : JSON.stringify(record),
  );
}

/**
 * Three-state registration of one candidate. A first (one query settles most candidates: NXDOMAIN
 * means nobody registered it); otherwise AAAA, MX and NS together. Registered when any of the four
 * has records or the name exists; unknown when the answer could not be had.
 */
export async function resolveLookalike(
  candidate: Permutation,
  resolver: Resolver,
): Promise<{ resolved: ResolvedLookalike; queries: number }> {
  const a = await resolver.query(candidate.domain, 'A');
  const base = { ...candidate, a: [], aaaa: [], mx: [], ns: [] };
  if (a.status === 'absent' && a.reason === 'nxdomain') return { resolved: { ...base, state: 'unregistered' }, queries: 1 };
  if (a.status === 'unknown') return { resolved: { ...base, state: 'unknown', reason: `A: ${a.reason}` }, queries: 1 };
  const [aaaa, mx, ns] = await Promise.all([
    resolver.query(candidate.domain, 'AAAA'),
    resolver.query(candidate.domain, 'MX'),
    resolver.query(candidate.domain, 'NS'),
  ]);
  const resolved: ResolvedLookalike = {
    ...base,
    state: 'registered',
    a: records(a),
    aaaa: records(aaaa),
    mx: records(mx),
    ns: records(ns),
  };
  return { resolved, queries: 4 };
}

export interface LookalikeScan {
  generated: number;
  candidates: number;
  queries: number;
  resolved: ResolvedLookalike[];
  certificates: Map<string, LookalikeCertificate[]>;
  ctChecked: number;
  errors: CheckError[];
}

/** Resolves every candidate concurrently, then asks CT about each registered one (bounded). */
export async function scanLookalikes(ctx: OptInContext, candidates: Permutation[], generated: number): Promise<LookalikeScan> {
  let queries = 0;
  // Once the signal aborts no further candidate starts: the ones left out are counted below.
  const resolved = settledOnly(
    await mapBounded(
      candidates,
      ctx.settings.lookalike.concurrency,
      async (candidate) => {
        const outcome = await resolveLookalike(candidate, ctx.resolver);
        queries += outcome.queries;
        return outcome.resolved;
      },
      { signal: ctx.signal },
    ),
  );
  const registered = resolved.filter((item) => item.state === 'registered');
  const toCheck = registered.slice(0, ctx.settings.lookalike.maxCtChecks);
  const certificates = new Map<string, LookalikeCertificate[]>();
  const errors: CheckError[] = [];
  const unreachable = new Set<string>();
  await mapBounded(
    toCheck,
    4,
    async (item) => {
      const search = await searchCt(ctx, item.domain, 'leak', 'lookalike_ct');
      if (search.kind === 'error') {
        unreachable.add(search.message);
        return;
      }
      const found = certificatesFor(search.entries, item.domain);
      if (found.length > 0)
        certificates.set(
          item.domain,
          found.map((certificate) => ({ ...certificate, source: 'ct' as const })),
        );
    },
    { signal: ctx.signal },
  );
  for (const message of unreachable) errors.push({ surface: 'leak', check: 'lookalike_ct', message });
  if (resolved.length < candidates.length)
    errors.push({
      surface: 'leak',
      check: 'lookalikes',
      message: `the scan deadline stopped resolution after ${resolved.length} of ${candidates.length} candidates`,
    });
  return { generated, candidates: candidates.length, queries, resolved, certificates, ctChecked: toCheck.length, errors };
}
