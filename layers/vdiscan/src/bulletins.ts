/**
 * The gateway bulletin table (DESIGN §21): a fingerprinted gateway version below `fixed` gets
 * `vdi.gateway.vulnerable_version`, its severity from the CVSS v3 base score (DESIGN §11 bands).
 * Sources and licence: docs/vdiscan-bulletins.md. Only products whose version vdiscan can read are
 * listed: a row nothing could ever match would be a check that cannot fail.
 */
export interface Bulletin {
  product: 'guacamole';
  id: string;
  title: string;
  /** The first fixed version; versions below it (and at or above `introduced`, when given) are affected. */
  fixed: string;
  introduced?: string;
  cvss: number;
  vector: string;
  source: string;
}

export const BULLETINS: readonly Bulletin[] = [
  {
    product: 'guacamole',
    id: 'CVE-2023-30575',
    title: 'Incorrect calculation of Guacamole protocol element lengths',
    fixed: '1.5.2',
    cvss: 6.5,
    vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:N/I:H/A:N',
    source: 'https://guacamole.apache.org/security/',
  },
  {
    product: 'guacamole',
    id: 'CVE-2023-30576',
    title: 'Use-after-free in handling of RDP audio input buffer',
    introduced: '0.9.10',
    fixed: '1.5.2',
    cvss: 6.8,
    vector: 'CVSS:3.1/AV:N/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:N',
    source: 'https://guacamole.apache.org/security/',
  },
];

/** -1, 0 or 1 for dotted numeric versions ("1.5.1" < "1.5.2" < "1.10.0"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

export function bulletinsFor(product: string, version: string): Bulletin[] {
  return BULLETINS.filter(
    (b) =>
      b.product === product &&
      compareVersions(version, b.fixed) < 0 &&
      (b.introduced === undefined || compareVersions(version, b.introduced) >= 0),
  );
}

/** DESIGN §11: CVSS v3 bands. */
export function severityOfCvss(score: number): 'critical' | 'high' | 'medium' | 'low' {
  return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
}
