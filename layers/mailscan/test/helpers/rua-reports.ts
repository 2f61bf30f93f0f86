/**
 * DMARC aggregate reports generated for tests and the benchmark: deterministic, in the RFC 7489
 * Appendix C shape, with a chosen number of records spread over a chosen number of source IPs.
 */
export interface GeneratedReportOptions {
  domain: string;
  records: number;
  /** Distinct source IPs the records cycle through. */
  ips: number;
  orgName?: string;
  reportId?: string;
  begin?: number;
}

/** Record i: count 1 + i % 7; every third IP fails both alignments, every fifth passes only SPF. */
export function generateReport({
  domain,
  records,
  ips,
  orgName = 'generator.example',
  reportId = 'gen-1',
  begin = 1763856000,
}: GeneratedReportOptions): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<feedback>\n',
    `<report_metadata><org_name>${orgName}</org_name><email>dmarc@${orgName}</email><report_id>${reportId}</report_id>`,
    `<date_range><begin>${begin}</begin><end>${begin + 86399}</end></date_range></report_metadata>\n`,
    `<policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><pct>100</pct></policy_published>\n`,
  ];
  for (let i = 0; i < records; i++) {
    parts.push(recordXml(domain, i, ips));
  }
  parts.push('</feedback>\n');
  return parts.join('');
}

export function ipOf(index: number): string {
  return `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
}

/** The policy_evaluated results of record i's IP (see generateReport). */
export function alignmentOf(ipIndex: number): { dkim: 'pass' | 'fail'; spf: 'pass' | 'fail' } {
  if (ipIndex % 3 === 0) return { dkim: 'fail', spf: 'fail' };
  if (ipIndex % 5 === 0) return { dkim: 'fail', spf: 'pass' };
  return { dkim: 'pass', spf: 'pass' };
}

function recordXml(domain: string, i: number, ips: number): string {
  const ipIndex = i % ips;
  const { dkim, spf } = alignmentOf(ipIndex);
  return (
    `<record><row><source_ip>${ipOf(ipIndex)}</source_ip><count>${1 + (i % 7)}</count><policy_evaluated><disposition>none</disposition><dkim>${dkim}</dkim><spf>${spf}</spf></policy_evaluated></row>` +
    `<identifiers><header_from>${domain}</header_from></identifiers><auth_results><spf><domain>${domain}</domain><result>${spf}</result></spf></auth_results></record>\n`
  );
}
