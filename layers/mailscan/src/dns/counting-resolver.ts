import { normaliseName } from '../../../../lib/dns/answer-mapping.ts';
import { currentRecord } from './dependency-depth.ts';
import type { DnsAnswer, RecordType, Resolver } from '../../../../lib/dns/resolver.ts';

export interface QueryCount {
  /** Distinct (name, type) questions: with the caching wrapper inside, the queries sent. */
  queries: number;
  /** The longest chain of queries that each waited for the previous one's answer. */
  maxDepth: number;
  /** Each question with the depth at which it was first asked. */
  log: { name: string; type: RecordType; depth: number }[];
}

/**
 * Counts questions and their dependency depth (see dependency-depth.ts). Place it outside the
 * caching resolver: a repeated question costs no new round-trip, so it keeps the depth at which it
 * was first asked, and an asker that waits for it sees that depth.
 */
export function makeCountingResolver(inner: Resolver): { resolver: Resolver; count: QueryCount } {
  const count: QueryCount = { queries: 0, maxDepth: 0, log: [] };
  const depthByKey = new Map<string, number>();
  const resolver: Resolver = {
    async query<T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T>> {
      const record = currentRecord();
      const key = `${type} ${normaliseName(name)}`;
      let depth = depthByKey.get(key);
      if (depth === undefined) {
        depth = (record?.depth ?? 0) + 1;
        depthByKey.set(key, depth);
        count.queries += 1;
        count.maxDepth = Math.max(count.maxDepth, depth);
        count.log.push({ name: normaliseName(name), type, depth });
      }
      const answer = await inner.query(name, type);
      if (record) record.depth = Math.max(record.depth, depth);
      return answer;
    },
  };
  return { resolver, count };
}
