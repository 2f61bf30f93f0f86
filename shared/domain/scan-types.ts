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
}

/**
 * Per-type label, hint and target rule. Types DESIGN §4 leaves open are decided in
 * docs/api.md: m365 takes the tenant's domain, sbom a repository URL, vdi and medical a
 * host or network, ai_red_team the URL of the model endpoint.
 */
export const scanTypes: Record<ScanType, ScanTypeInfo> = {
  email_security: { label: 'Email Security', targetHint: 'apex domain, e.g. example.com', validateTarget: domainName },
  m365: { label: 'M365', targetHint: 'tenant domain, e.g. contoso.com', validateTarget: apexDomain },
  ssl: { label: 'SSL/TLS', targetHint: 'hostname with optional port, e.g. www.example.com:443', validateTarget: hostnameWithOptionalPort },
  dast: { label: 'DAST', targetHint: 'http(s) URL, e.g. https://app.example.com', validateTarget: httpUrl },
  vapt: { label: 'VAPT', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork },
  secret_scan: { label: 'Secret Scan', targetHint: 'repository URL, e.g. https://github.com/org/repo', validateTarget: repositoryUrl },
  nhi: { label: 'NHI', targetHint: 'credential alias, e.g. ci-deploy-key', validateTarget: credentialAlias },
  vm: { label: 'VM', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork },
  sbom: { label: 'SBOM', targetHint: 'repository URL', validateTarget: repositoryUrl },
  vdi: { label: 'VDI', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork },
  medical: { label: 'Medical', targetHint: 'IP, CIDR or hostname', validateTarget: hostOrNetwork },
  ai_red_team: { label: 'AI Red-Team', targetHint: 'http(s) URL of the model endpoint', validateTarget: httpUrl },
};

/** Validates and normalises a target for a scan type (length-bounded first). */
export function validateTarget(scanType: ScanType, input: string): TargetResult {
  return boundedTarget(scanTypes[scanType].validateTarget)(input);
}
