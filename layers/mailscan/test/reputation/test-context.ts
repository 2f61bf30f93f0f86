import type { DnsAnswer, RecordType, Resolver } from '../../../../lib/dns/resolver.ts';
import type { ReputationContext, ReputationInput } from '../../src/reputation/context.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';

export const NOW = new Date('2025-06-01T12:00:00Z');

export function found(...records: unknown[]): DnsAnswer<RecordType> {
  return { status: 'found', records } as DnsAnswer<RecordType>;
}
export const nxdomain: DnsAnswer<RecordType> = { status: 'absent', reason: 'nxdomain' };
export const nodata: DnsAnswer<RecordType> = { status: 'absent', reason: 'nodata' };
export const timeout: DnsAnswer<RecordType> = { status: 'unknown', reason: 'timeout', message: 'no answer within 1000 ms' };

export function input(overrides: Partial<ReputationInput> = {}): ReputationInput {
  return { domain: 'brand.test', mx: [], spfLookups: 3, dkimKeys: [], ...overrides };
}

/** A context whose fetch fails the test if called, and whose lists are empty unless given. */
export function context(
  options: {
    resolver?: Resolver;
    table?: Record<string, DnsAnswer<RecordType>>;
    fetch?: ReputationContext['fetch'];
    config?: Partial<ReputationContext['config']>;
  } = {},
): ReputationContext & { logged: { event: string; fields?: Record<string, unknown> }[] } {
  const logged: { event: string; fields?: Record<string, unknown> }[] = [];
  return {
    resolver: options.resolver ?? makeFakeResolver(options.table ?? {}),
    fetch:
      options.fetch ??
      (async (url) => {
        throw new Error(`unexpected fetch of ${url}`);
      }),
    config: {
      dnsbl: { ipZones: [], domainZones: [] },
      trustlist: { zones: [] },
      senderScore: { endpoint: '', timeoutMs: 1_000 },
      threatIntel: { endpoint: '', timeoutMs: 1_000 },
      vmcRoots: () => [],
      ...options.config,
    },
    now: () => NOW,
    log: (event, fields) => logged.push({ event, fields }),
    logged,
  };
}
