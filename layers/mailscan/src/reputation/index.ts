import type { ReputationContext, ReputationInput, SurfaceResult } from './context.ts';
import { checkError, errorMessage, type CheckResult } from './check-result.ts';
import { checkBimi } from './bimi.ts';
import { checkDane } from './dane.ts';
import { checkDkimHygiene } from './dkim-hygiene.ts';
import { checkDnsbl, checkTrustlist } from './dnsbl.ts';
import { checkDnssec } from './dnssec.ts';
import { checkMxProvider } from './mx-provider.ts';
import { checkSenderScore } from './sender-score.ts';
import { checkSpfLookupLimit } from './spf-limit.ts';
import { checkThreatIntel } from './threat-intel.ts';

export type { ReputationContext, ReputationInput, SurfaceResult } from './context.ts';
export { reputationConfigFromEnv, type ReputationFileConfig, type ReputationConfigResult } from './config-from-env.ts';
export { loadBundledVmcRoots } from './vmc-roots.ts';

type Check = (input: ReputationInput, ctx: ReputationContext) => Promise<CheckResult<object>> | CheckResult<object>;

/** Report key → check. Every check runs at once; none depends on another's answer. */
const checks: Record<string, Check> = {
  dnsbl: checkDnsbl,
  trustlist: checkTrustlist,
  bimi: checkBimi,
  dane: checkDane,
  dnssec: checkDnssec,
  spf_lookup_limit: checkSpfLookupLimit,
  dkim_key_hygiene: checkDkimHygiene,
  mx_provider: checkMxProvider,
  sender_score: checkSenderScore,
  threat_intel: checkThreatIntel,
};

/**
 * The reputation surface. Its status is `error` when any check errored (the others still report),
 * otherwise `ok`; a check skipped for want of an operator key does not make the surface skipped.
 * Each check's data carries its own status under its report key.
 */
export async function runReputation(input: ReputationInput, ctx: ReputationContext): Promise<SurfaceResult<Record<string, unknown>>> {
  const results = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await guarded(name, check, input, ctx)] as const));
  const data: Record<string, unknown> = {};
  for (const [name, result] of results) data[name] = { ...result.data, status: result.status };
  const findings = results.flatMap(([, result]) => result.findings);
  const errors = results.flatMap(([, result]) => result.errors);
  ctx.log('reputation finished', { findings: findings.length, errors: errors.length, skipped: results.filter(([, result]) => result.status === 'skipped').map(([name]) => name) });
  return { status: errors.length > 0 ? 'error' : 'ok', data, findings, errors };
}

/** A check that throws is a bug or an infrastructure fault: it becomes that check's error, not the surface's. */
async function guarded(name: string, check: Check, input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<object>> {
  try {
    return await check(input, ctx);
  } catch (error) {
    ctx.log('reputation check failed', { check: name, message: errorMessage(error) });
    return { status: 'error', data: {}, findings: [], errors: [checkError(name, `check failed: ${errorMessage(error)}`)] };
  }
}
