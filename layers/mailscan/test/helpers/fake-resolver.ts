import type { DnsAnswer, RecordType, Resolver } from '../../../../lib/dns/resolver.ts';

/** An in-memory Resolver for unit tests: answers from a table, records every question. */
export function makeFakeResolver(
  table: Record<string, DnsAnswer<RecordType>>,
): Resolver & { asked: string[]; release: () => void; hold: boolean } {
  const waiting: (() => void)[] = [];
  const fake = {
    asked: [] as string[],
    hold: false,
    release() {
      for (const resume of waiting.splice(0)) resume();
    },
    async query<T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T>> {
      const key = `${type} ${name}`;
      fake.asked.push(key);
      if (fake.hold) await new Promise<void>((resume) => waiting.push(resume));
      return (table[key] ?? { status: 'absent', reason: 'nxdomain' }) as DnsAnswer<T>;
    },
  };
  return fake;
}
