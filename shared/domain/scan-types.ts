import * as z from 'zod';

/** Wire values of the scan types (DESIGN §4). */
export const SCAN_TYPES = [
  'email_security',
  'm365',
  'ssl',
  'dast',
  'vapt',
  'secret_scan',
  'nhi',
  'vm',
  'sbom',
  'vdi',
  'medical',
  'ai_red_team',
] as const;
export const ScanType = z.enum(SCAN_TYPES);
export type ScanType = z.infer<typeof ScanType>;

export interface ScanTypeInfo {
  label: string;
  targetHint: string;
}

/**
 * Per-type label and hint. The target rules are in scan-targets.ts: a module that only needs the
 * enum or the labels (every Lambda bundle, the UI's lists) then does not carry the public suffix
 * list that the m365 rule needs.
 */
export const scanTypes: Record<ScanType, ScanTypeInfo> = {
  email_security: { label: 'Email Security', targetHint: 'apex domain, e.g. example.com' },
  m365: { label: 'M365', targetHint: 'tenant domain, e.g. contoso.com' },
  ssl: { label: 'SSL/TLS', targetHint: 'hostname with optional port, e.g. www.example.com:443' },
  dast: { label: 'DAST', targetHint: 'http(s) URL, e.g. https://app.example.com' },
  vapt: { label: 'VAPT', targetHint: 'IP, CIDR or hostname' },
  secret_scan: { label: 'Secret Scan', targetHint: 'repository URL, e.g. https://github.com/org/repo' },
  nhi: { label: 'NHI', targetHint: 'credential alias, e.g. ci-deploy-key' },
  vm: { label: 'VM', targetHint: 'IP, CIDR or hostname' },
  sbom: { label: 'SBOM', targetHint: 'repository URL' },
  vdi: { label: 'VDI', targetHint: 'IP or hostname, optionally :port, e.g. rdp.example.com:3389' },
  medical: { label: 'Medical', targetHint: 'host, host:port or FHIR/DICOMweb URL, e.g. pacs.example.org:11112' },
  ai_red_team: { label: 'AI Red-Team', targetHint: 'http(s) URL of the model endpoint' },
};
