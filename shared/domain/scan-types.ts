import * as z from 'zod';
import {
  apexDomain,
  domainName,
  boundedTarget,
  credentialAlias,
  hostOrNetwork,
  hostnameWithOptionalPort,
  httpUrl,
  repositoryUrl,
  type TargetResult,
} from './targets.ts';
import { DEFAULT_TARGET_POLICY, reachProblem, type TargetPolicy, type TargetReach } from './network-policy.ts';

/** Wire values of the scan types (DESIGN §4). */
export const SCAN_TYPES = [
  'email_security', 'm365', 'ssl', 'dast', 'vapt', 'secret_scan', 'nhi', 'vm', 'sbom', 'vdi', 'medical', 'ai_red_team',
] as const;
export const ScanType = z.enum(SCAN_TYPES);
export type ScanType = z.infer<typeof ScanType>;

export interface ScanTypeInfo {
  label: string;
  targetHint: string;
  validateTarget: (input: string) => TargetResult;
  /** How the target reaches the network: what the target policy checks (network-policy.ts). */
  reach: TargetReach;
}

/**
 * Per-type label, hint and target rule. Types DESIGN §4 leaves open are decided in
 * docs/api.md: m365 takes the tenant's domain, sbom a repository URL, vdi and medical a
 * host or network, ai_red_team the URL of the model endpoint.
 */
export const scanTypes: Record<ScanType, ScanTypeInfo> = {
  email_security: { label: 'Email Security', targetHint: 'apex domain, e.g. example.com', validateTarget: domainName, reach: 'none' },
  m365: { label: 'M365', targetHint: 'tenant domain, e.g. contoso.com', validateTarget: apexDomain, reach: 'none' },
  ssl: { label: 'SSL/TLS', targetHint: 'hostname with optional port, e.g. www.example.com:443', validateTarget: hostnameWithOptionalPort, reach: 'host' },
  dast: { label: 'DAST', targetHint: 'http(s) URL, e.g. https://app.example.com', validateTarget: httpUrl, reach: 'url' },
  vapt: { label: 'VAPT', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork, reach: 'network' },
  secret_scan: { label: 'Secret Scan', targetHint: 'repository URL, e.g. https://github.com/org/repo', validateTarget: repositoryUrl, reach: 'repository' },
  nhi: { label: 'NHI', targetHint: 'credential alias, e.g. ci-deploy-key', validateTarget: credentialAlias, reach: 'none' },
  vm: { label: 'VM', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork, reach: 'network' },
  sbom: { label: 'SBOM', targetHint: 'repository URL', validateTarget: repositoryUrl, reach: 'repository' },
  vdi: { label: 'VDI', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork, reach: 'network' },
  medical: { label: 'Medical', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork, reach: 'network' },
  ai_red_team: { label: 'AI Red-Team', targetHint: 'http(s) URL of the model endpoint', validateTarget: httpUrl, reach: 'url' },
};

/**
 * Validates and normalises a target for a scan type (length-bounded first), then refuses targets
 * that point inside the deployment under `policy` (loopback, link-local, metadata, by default
 * private ranges, over-wide networks). Runners check the resolved addresses again at connect time.
 */
export function validateTarget(scanType: ScanType, input: string, policy: TargetPolicy = DEFAULT_TARGET_POLICY): TargetResult {
  const result = boundedTarget(scanTypes[scanType].validateTarget)(input);
  if (!result.ok) return result;
  const problem = reachProblem(scanTypes[scanType].reach, result.value, policy);
  return problem === null ? result : { ok: false, message: problem };
}
