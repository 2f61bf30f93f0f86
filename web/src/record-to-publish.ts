import type { Finding } from '../../shared/domain/finding.ts';

/** A DNS record the remediation asks for, ready to paste into a zone. */
export interface RecordToPublish {
  name: string;
  type: 'TXT';
  value: string;
  /** What to check before publishing (a placeholder, a step to take first). */
  note?: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The record to publish for the findings whose remediation is a DNS record (SPF and DMARC), built
 * from the finding's own evidence: the current record with the one term changed, or a first record.
 * Other findings have none.
 */
export function recordToPublish(finding: Pick<Finding, 'rule_id' | 'evidence' | 'target'>): RecordToPublish | null {
  const evidence = finding.evidence;
  const domain = text(evidence.domain) ?? finding.target;
  switch (finding.rule_id) {
    case 'mailscan.spf.missing':
      return {
        name: domain,
        type: 'TXT',
        value: 'v=spf1 -all',
        note: 'This says the domain sends no mail. If it does, list each sender before -all (for example include:_spf.google.com).',
      };
    case 'mailscan.spf.permissive_all': {
      const record = text(evidence.record);
      if (record === null) return null;
      const fixed = /\s[+?~-]?all$/i.test(record) ? record.replace(/\s[+?~-]?all$/i, ' -all') : `${record} -all`;
      return { name: domain, type: 'TXT', value: fixed, note: 'Use ~all first if you are not sure every sender is listed.' };
    }
    case 'mailscan.dmarc.missing':
      return {
        name: `_dmarc.${domain}`,
        type: 'TXT',
        value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}`,
        note: 'The rua mailbox must exist. Move to p=quarantine, then p=reject, once the reports show aligned mail.',
      };
    case 'mailscan.dmarc.policy_none': {
      const record = text(evidence.record);
      if (record === null) return null;
      return {
        name: `_dmarc.${text(evidence.record_domain) ?? domain}`,
        type: 'TXT',
        value: record.replace(/(^|;)\s*p\s*=\s*none\s*(?=;|$)/i, '$1 p=quarantine'),
        note: 'Publish it once the aggregate reports show that your own mail passes.',
      };
    }
    default:
      return null;
  }
}
