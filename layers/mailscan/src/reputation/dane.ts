import type { ReputationContext, ReputationInput } from './context.ts';
import { checkError, type CheckResult } from './check-result.ts';

/** DANE for SMTP (RFC 7672): TLSA at `_25._tcp.<mx>`. Reported only; the catalogue has no DANE rule. */
export interface TlsaEntry {
  usage: number;
  usage_name: string;
  selector: number;
  selector_name: string;
  matching_type: number;
  matching_type_name: string;
  data: string;
}

export interface DaneHost {
  host: string;
  name: string;
  status: 'found' | 'absent' | 'unknown';
  /** The resolver's AD bit: DANE is only meaningful when the TLSA answer is DNSSEC-validated. */
  dnssec_validated?: boolean | null;
  records?: TlsaEntry[];
  error?: string;
}

const usages = ['PKIX-TA', 'PKIX-EE', 'DANE-TA', 'DANE-EE'];
const selectors = ['Cert', 'SPKI'];
const matchingTypes = ['Full', 'SHA2-256', 'SHA2-512'];

export async function checkDane(
  input: ReputationInput,
  ctx: ReputationContext,
): Promise<CheckResult<{ status: 'ok' | 'error'; hosts: DaneHost[] }>> {
  // A null MX (".") accepts no mail, so it has no TLSA to look for.
  const hosts = [...new Set(input.mx.map((mx) => mx.host.toLowerCase().replace(/\.$/, '')).filter((host) => host !== ''))];
  const results = await Promise.all(
    hosts.map(async (host): Promise<DaneHost> => {
      const name = `_25._tcp.${host}`;
      const answer = await ctx.resolver.query(name, 'TLSA');
      if (answer.status === 'absent') return { host, name, status: 'absent' };
      if (answer.status === 'unknown') return { host, name, status: 'unknown', error: `DNS ${answer.reason}: ${answer.message}` };
      return {
        host,
        name,
        status: 'found',
        dnssec_validated: answer.authenticated ?? null,
        records: answer.records.map((record) => ({
          usage: record.usage,
          usage_name: usages[record.usage] ?? 'unassigned',
          selector: record.selector,
          selector_name: selectors[record.selector] ?? 'unassigned',
          matching_type: record.matchingType,
          matching_type_name: matchingTypes[record.matchingType] ?? 'unassigned',
          data: Buffer.from(record.certificate).toString('hex'),
        })),
      };
    }),
  );
  const errors = results.filter((host) => host.status === 'unknown').map((host) => checkError('dane', `${host.name}: ${host.error}`));
  const status = errors.length > 0 ? 'error' : 'ok';
  return { status, data: { status, hosts: results }, findings: [], errors };
}
