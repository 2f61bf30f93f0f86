import { catalogue } from './catalogue.ts';
import { canonicalJson, reportFingerprint } from './finding-fingerprint.ts';
import type { Report } from './report.ts';

/**
 * Each finding's subject (the record in words) and locations (its surface, and its DKIM selector
 * when it has one), so a later scan resolves it only when it ran that surface and read that selector;
 * its kit `fingerprint_key`, and its `ref` for the adversary findings that name it.
 */
export function placeFindings<T extends Pick<Report, 'domain' | 'findings'>>(report: T): T {
  const surfaceOf = new Map(catalogue.map((rule) => [rule.rule_id, rule.surface]));
  return {
    ...report,
    findings: report.findings.map((finding) => {
      const family = finding.rule_id.split('.')[1] ?? '';
      const selector = typeof finding.evidence.selector === 'string' ? finding.evidence.selector : undefined;
      const subject =
        selector !== undefined
          ? `${selector}._domainkey.${report.domain}`
          : family === 'dmarc'
            ? `_dmarc.${report.domain}`
            : family === 'mta_sts'
              ? `_mta-sts.${report.domain}`
              : `${report.domain} (${family})`;
      const locations = [`mail:${surfaceOf.get(finding.rule_id) ?? 'posture'}`, ...(selector !== undefined ? [`dkim:${selector}`] : [])];
      // The kit's key is what the stored fingerprint always hashed: the evidence key, else the whole evidence.
      const fingerprintKey = finding.evidence_key ?? canonicalJson(finding.evidence);
      return { ...finding, subject, locations, fingerprint_key: fingerprintKey, ref: reportFingerprint(report.domain, finding) };
    }),
  };
}
