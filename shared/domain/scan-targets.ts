import { DEFAULT_TARGET_POLICY, reachProblem, type TargetPolicy, type TargetReach } from './network-policy.ts';
import type { ScanType } from './scan-types.ts';
import {
  boundedTarget,
  credentialAlias,
  domainName,
  hostOrNetwork,
  hostPortOrHttpUrl,
  hostnameWithOptionalPort,
  httpUrl,
  repositoryUrl,
  type TargetResult,
} from './targets.ts';

/** A target check: the normalised target or why it is not acceptable. */
export type TargetRule = (input: string) => TargetResult;

/**
 * The target rule of each scan type but m365. Types DESIGN §4 leaves open are decided in
 * docs/api.md: sbom takes a repository URL, vdi a host with an optional port (DESIGN §21), medical a host, host:port or http(s) URL (§22), ai_red_team the URL
 * of the model endpoint. m365 takes the tenant's apex domain by the public suffix list
 * (apex-domain.ts), which is ~120 KiB of data derived when its module loads: the services load it
 * at the first m365 target (targetRuleFor), so no Lambda pays for it at cold start, and a caller
 * that must stay synchronous (the UI's prompt) imports it and passes it to targetRulesWith.
 */
export const targetRules: Record<Exclude<ScanType, 'm365'>, TargetRule> = {
  email_security: domainName,
  ssl: hostnameWithOptionalPort,
  dast: httpUrl,
  vapt: hostOrNetwork,
  secret_scan: repositoryUrl,
  nhi: credentialAlias,
  vm: hostOrNetwork,
  sbom: repositoryUrl,
  vdi: hostnameWithOptionalPort,
  medical: hostPortOrHttpUrl,
  ai_red_team: httpUrl,
};

/** How each scan type's target reaches the network: what the target policy checks (network-policy.ts). */
export const targetReach: Record<ScanType, TargetReach> = {
  email_security: 'none',
  m365: 'none',
  ssl: 'host',
  dast: 'url',
  vapt: 'network',
  secret_scan: 'repository',
  nhi: 'none',
  vm: 'network',
  sbom: 'repository',
  vdi: 'host',
  medical: 'host_or_url',
  ai_red_team: 'url',
};

/**
 * `rule` length-bounded first, then refusing targets that point inside the deployment under
 * `policy` (loopback, link-local, metadata, by default private ranges, over-wide networks).
 * Runners check the resolved addresses again at connect time.
 */
function checked(scanType: ScanType, rule: TargetRule, policy: TargetPolicy): TargetRule {
  const bounded = boundedTarget(rule);
  return (input) => {
    const result = bounded(input);
    if (!result.ok) return result;
    const problem = reachProblem(targetReach[scanType], result.value, policy);
    return problem === null ? result : { ok: false, message: problem };
  };
}

/** The full check of a target of any type but m365, synchronously. */
export function targetRuleOf(scanType: Exclude<ScanType, 'm365'>, policy: TargetPolicy = DEFAULT_TARGET_POLICY): TargetRule {
  return checked(scanType, targetRules[scanType], policy);
}

/** The full check of a target of `scanType`; m365's module is loaded the first time it is asked for. */
export async function targetRuleFor(scanType: ScanType, policy: TargetPolicy = DEFAULT_TARGET_POLICY): Promise<TargetRule> {
  if (scanType !== 'm365') return targetRuleOf(scanType, policy);
  return checked(scanType, (await import('./apex-domain.ts')).apexDomain, policy);
}

/** Validates and normalises a target for a scan type under `policy`. */
export async function validateTarget(
  scanType: ScanType,
  input: string,
  policy: TargetPolicy = DEFAULT_TARGET_POLICY,
): Promise<TargetResult> {
  return (await targetRuleFor(scanType, policy))(input);
}

/** Every type's full check, with the m365 rule passed in: for callers that cannot wait. */
export function targetRulesWith(m365: TargetRule, policy: TargetPolicy = DEFAULT_TARGET_POLICY): Record<ScanType, TargetRule> {
  const rules: Record<ScanType, TargetRule> = { ...targetRules, m365 };
  return Object.fromEntries(Object.entries(rules).map(([type, rule]) => [type, checked(type as ScanType, rule, policy)])) as Record<
    ScanType,
    TargetRule
  >;
}
