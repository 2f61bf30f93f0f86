import { inParallel } from '../dns/dependency-depth.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { CheckError, ReputationInput } from '../reputation/context.ts';

export type MxHost = ReputationInput['mx'][number];

export interface MxData {
  /** `null_mx`: the domain declares it accepts no mail (RFC 7505). */
  status: 'ok' | 'none' | 'null_mx' | 'temperror';
  hosts: MxHost[];
}

export interface MxCheck {
  data: MxData;
  errors: CheckError[];
  answered: boolean;
}

/** Bounds the fan-out of a hostile MX set. */
const MAX_MX_HOSTS = 20;

export async function checkMx(domain: string, resolver: Resolver): Promise<MxCheck> {
  const answer = await resolver.query(domain, 'MX');
  if (answer.status === 'unknown') {
    return {
      data: { status: 'temperror', hosts: [] },
      errors: [{ surface: 'posture', check: 'mx', message: answer.message }],
      answered: false,
    };
  }
  if (answer.status === 'absent') return { data: { status: 'none', hosts: [] }, errors: [], answered: true };
  const records = [...answer.records].sort((a, b) => a.preference - b.preference);
  if (records.length === 1 && (records[0].exchange === '' || records[0].exchange === '.')) {
    return { data: { status: 'null_mx', hosts: [] }, errors: [], answered: true };
  }
  const errors: CheckError[] = [];
  const hosts = await inParallel(records.slice(0, MAX_MX_HOSTS), async ({ exchange, preference }): Promise<MxHost> => {
    const [v4, v6] = await Promise.all([resolver.query(exchange, 'A'), resolver.query(exchange, 'AAAA')]);
    for (const address of [v4, v6]) {
      if (address.status === 'unknown') errors.push({ surface: 'posture', check: 'mx', message: `${exchange}: ${address.message}` });
    }
    return { host: exchange, preference, ipv4: v4.status === 'found' ? v4.records : [], ipv6: v6.status === 'found' ? v6.records : [] };
  });
  return { data: { status: errors.length > 0 ? 'temperror' : 'ok', hosts }, errors, answered: true };
}
