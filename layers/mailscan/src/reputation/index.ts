import { branch, dependency } from '../dns/dependency-depth.ts';
import type { PendingReputationInput, RecordedCheck, ReputationContext, ReputationInput, SurfaceResult } from './context.ts';
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

export type { PendingReputationInput, ReputationContext, ReputationInput, SurfaceResult } from './context.ts';
export { reputationConfigFromEnv, type ReputationFileConfig, type ReputationConfigResult } from './config-from-env.ts';
export { loadBundledVmcRoots } from './vmc-roots.ts';

type Check = (input: ReputationInput, ctx: ReputationContext) => Promise<CheckResult<object>> | CheckResult<object>;

type PostureField = Exclude<keyof ReputationInput, 'domain'>;

/**
 * Report key → check, with the posture results it waits for and the catalogue rules it decides
 * (none for the checks that only describe: trust list, DANE, MX provider). No check depends on
 * another's answer; each starts as soon as the posture fields it names are ready (the domain always is).
 */
const checks: Record<string, { needs: PostureField[]; rules: readonly string[]; run: Check }> = {
  dnsbl: { needs: ['mx'], rules: ['mailscan.dnsbl.listed'], run: checkDnsbl },
  trustlist: { needs: ['mx'], rules: [], run: checkTrustlist },
  bimi: { needs: [], rules: ['mailscan.bimi.vmc_invalid'], run: checkBimi },
  dane: { needs: ['mx'], rules: [], run: checkDane },
  dnssec: { needs: [], rules: ['mailscan.dnssec.unsigned'], run: checkDnssec },
  spf_lookup_limit: { needs: ['spfLookups'], rules: ['mailscan.spf.lookup_limit'], run: checkSpfLookupLimit },
  dkim_key_hygiene: { needs: ['dkimKeys'], rules: ['mailscan.dkim.weak_key'], run: checkDkimHygiene },
  mx_provider: { needs: ['mx'], rules: [], run: checkMxProvider },
  sender_score: { needs: ['mx'], rules: ['mailscan.reputation.mx_score_low'], run: checkSenderScore },
  threat_intel: { needs: [], rules: ['mailscan.reputation.threatintel_blocked'], run: checkThreatIntel },
};

/**
 * The input one check sees: the fields it declared, awaited. Reading an undeclared field throws,
 * so a check that starts needing more posture data fails loudly until its `needs` says so.
 */
async function inputFor(name: string, needs: PostureField[], input: ReputationInput | PendingReputationInput): Promise<ReputationInput> {
  const view: Record<string, unknown> = { domain: input.domain };
  for (const field of needs) view[field] = await dependency(input[field]);
  return new Proxy(view, {
    get(target, property, receiver) {
      if (typeof property === 'string' && !(property in target) && ['mx', 'spfLookups', 'dkimKeys'].includes(property)) {
        throw new Error(`check ${name} read input.${property} without declaring it in needs`);
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  }) as unknown as ReputationInput;
}

/**
 * The reputation surface. Its status is `error` when any check errored (the others still report),
 * otherwise `ok`; a check skipped for want of an operator key does not make the surface skipped.
 * Under its report key each check has `outcome` (ok/error/skipped, like a surface) and `status`:
 * the check's own (`within_limit` for the SPF limit), or the outcome when the check has none.
 */
export async function runReputation(
  input: ReputationInput | PendingReputationInput,
  ctx: ReputationContext,
): Promise<SurfaceResult<Record<string, unknown>>> {
  const results = await Promise.all(
    Object.entries(checks).map(
      async ([name, { needs, run }]) => [name, await branch(() => guarded(name, run, needs, input, ctx))] as const,
    ),
  );
  const data: Record<string, unknown> = {};
  for (const [name, result] of results) data[name] = { status: result.status, ...result.data, outcome: result.status };
  const findings = results.flatMap(([, result]) => result.findings);
  const errors = results.flatMap(([, result]) => result.errors);
  ctx.log('reputation finished', {
    findings: findings.length,
    errors: errors.length,
    skipped: results.filter(([, result]) => result.status === 'skipped').map(([name]) => name),
  });
  const recorded = results.flatMap(([name, result]) => recordCheck(name, result, ctx));
  return { status: errors.length > 0 ? 'error' : 'ok', data, findings, errors, checks: recorded };
}

/**
 * How a check ran, in the report's words: a check skipped says why (no key in this deployment),
 * one that could not complete says what stopped it, one that ran says its verdict and what it asked.
 */
function recordCheck(name: string, result: CheckResult<object>, ctx: ReputationContext): RecordedCheck[] {
  const rules = checks[name]?.rules ?? [];
  if (rules.length === 0) return [];
  const data = result.data as { status?: unknown; reason?: unknown };
  const reason = typeof data.reason === 'string' ? data.reason : undefined;
  if (result.status === 'skipped') return [{ rules, outcome: 'skipped', detail: reason ?? `${name} did not run` }];
  if (result.status === 'error') {
    const detail = result.errors.map((error) => error.message).join('; ') || reason || `${name} could not complete`;
    return [{ rules, outcome: 'error', detail }];
  }
  const lists = name === 'dnsbl' ? [...ctx.config.dnsbl.ipZones, ...ctx.config.dnsbl.domainZones] : [];
  const keys = name === 'dkim_key_hygiene' ? ((result.data as { keys?: { selector: string }[] }).keys ?? []) : [];
  const detail = `${name.replaceAll('_', ' ')}: ${verdictInWords(name, result.data as Record<string, unknown>)}`;
  return [
    {
      rules,
      outcome: 'ran',
      detail,
      ...(lists.length > 0 ? { lists } : {}),
      // The keys examined: a weak-key issue is located at its selector, so only a check that read that selector resolves it.
      ...(name === 'dkim_key_hygiene' ? { selectors: keys.map((key) => key.selector) } : {}),
    },
  ];
}

/** What a reputation check that ran found out, in words: its state where it has one, what it asked. */
function verdictInWords(name: string, data: Record<string, unknown>): string {
  const state = typeof data.state === 'string' ? data.state : typeof data.status === 'string' ? data.status : 'checked';
  const words = state.replaceAll('_', ' ');
  if (name === 'dnsbl') {
    const results = Array.isArray(data.results) ? (data.results as { subject: string; status: string; zone: string }[]) : [];
    const listed = results.filter((result) => result.status === 'listed').length;
    const subjects = new Set(results.map((result) => result.subject)).size;
    const zones = new Set(results.map((result) => result.zone)).size;
    return `${subjects} subject${subjects === 1 ? '' : 's'} (the domain, its MX addresses) asked on ${zones} list${zones === 1 ? '' : 's'}: ${listed} listing${listed === 1 ? '' : 's'}`;
  }
  if (name === 'dkim_key_hygiene') {
    const keys = Array.isArray(data.keys)
      ? (data.keys as { selector: string; key_type: string; bits: number | null; verdict: string }[])
      : [];
    if (keys.length === 0) return 'no usable DKIM key to examine';
    return `${keys.length} key${keys.length === 1 ? '' : 's'} examined: ${keys.map((key) => `${key.selector} ${key.key_type}${key.bits === null ? '' : ` ${key.bits} bits`} ${key.verdict}`).join(', ')}`;
  }
  if (name === 'dnssec' && typeof data.zone === 'string')
    return `${words} (zone ${data.zone}: DNSKEY ${String(data.dnskey)}, DS ${String(data.ds)})`;
  if (name === 'spf_lookup_limit' && typeof data.lookups === 'number') return `${words} (${data.lookups} of ${String(data.limit)} lookups)`;
  return words;
}

/** A check that throws is a bug or an infrastructure fault: it becomes that check's error, not the surface's. */
async function guarded(
  name: string,
  check: Check,
  needs: PostureField[],
  input: ReputationInput | PendingReputationInput,
  ctx: ReputationContext,
): Promise<CheckResult<object>> {
  try {
    return await check(await inputFor(name, needs, input), ctx);
  } catch (error) {
    ctx.log('reputation check failed', { check: name, message: errorMessage(error) });
    return { status: 'error', data: {}, findings: [], errors: [checkError(name, `check failed: ${errorMessage(error)}`)] };
  }
}
