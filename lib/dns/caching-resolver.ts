import { normaliseName } from './answer-mapping.ts';
import type { DnsAnswer, RecordType, Resolver } from './resolver.ts';

/**
 * One answer per (name, type) for the whole scan: concurrent askers share the query in flight, and
 * "unknown" answers are kept too, so two checks never see different answers for the same question.
 * Create one per scan; it is not a long-lived cache (no TTLs).
 */
export function makeCachingResolver(inner: Resolver): Resolver {
  const answers = new Map<string, Promise<DnsAnswer<RecordType>>>();
  return {
    query<T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T>> {
      const key = `${type} ${normaliseName(name)}`;
      let answer = answers.get(key);
      if (!answer) {
        answer = inner.query(name, type);
        answers.set(key, answer);
      }
      return answer as Promise<DnsAnswer<T>>;
    },
  };
}
