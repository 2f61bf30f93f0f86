import { finding } from '../catalogue.ts';
import type { ReputationInput } from './context.ts';
import type { CheckResult } from './check-result.ts';

/** RFC 7208 §4.6.4: evaluation may cause at most 10 DNS-querying terms; the 11th is a permerror. */
export const SPF_LOOKUP_LIMIT = 10;

export interface SpfLimitData {
  status: 'within_limit' | 'over_limit' | 'no_spf';
  lookups: number | null;
  limit: number;
}

/** Posture counts the lookups while expanding the record; this check only judges the count. */
export function checkSpfLookupLimit(input: ReputationInput): CheckResult<SpfLimitData> {
  const lookups = input.spfLookups;
  if (lookups === null) return { status: 'ok', data: { status: 'no_spf', lookups, limit: SPF_LOOKUP_LIMIT }, findings: [], errors: [] };
  if (lookups <= SPF_LOOKUP_LIMIT)
    return { status: 'ok', data: { status: 'within_limit', lookups, limit: SPF_LOOKUP_LIMIT }, findings: [], errors: [] };
  return {
    status: 'ok',
    data: { status: 'over_limit', lookups, limit: SPF_LOOKUP_LIMIT },
    findings: [
      finding(
        'mailscan.spf.lookup_limit',
        'high',
        `Evaluating the SPF record of ${input.domain} needs ${lookups} DNS lookups; receivers stop at ${SPF_LOOKUP_LIMIT} with a permerror.`,
        {
          domain: input.domain,
          lookups,
          limit: SPF_LOOKUP_LIMIT,
        },
      ),
    ],
    errors: [],
  };
}
