import { createHash } from 'node:crypto';
import { catalogue } from './catalogue.ts';
import { identityOf } from './finding-identity.ts';
import { canonicalJson, reportFingerprint } from './finding-fingerprint.ts';
import type { Report } from './report.ts';

/**
 * Each finding's identity (src/finding-identity.ts): its evidence key and kit `fingerprint_key`,
 * what makes two scans' sightings one problem, and its subject, that instance in words (the tracker
 * keeps one issue per rule and subject). Its locations: its surface, its DKIM selector when it has
 * one, and the block list or commercial feed that reported it, so a later scan resolves it only when
 * it ran that surface, read that selector and asked that list. Its `ref` for the adversary findings
 * that name it.
 */
export function placeFindings<T extends Pick<Report, 'domain' | 'findings'>>(report: T): T {
  const surfaceOf = new Map(catalogue.map((rule) => [rule.rule_id, rule.surface]));
  return {
    ...report,
    findings: report.findings.map((finding) => {
      const selector = typeof finding.evidence.selector === 'string' ? finding.evidence.selector : undefined;
      const identity = identityOf(report.domain, finding, () => canonicalJson(finding.evidence));
      const key = bounded(identity.key);
      const subject = identity.subject.slice(0, MAX_NAME);
      const list = listOf(finding);
      const locations = [
        `mail:${surfaceOf.get(finding.rule_id) ?? 'posture'}`,
        ...(selector !== undefined ? [`dkim:${selector}`] : []),
        ...(list !== undefined ? [`list:${list}`] : []),
      ];
      return {
        ...finding,
        evidence_key: key,
        subject,
        locations,
        fingerprint_key: key,
        ref: reportFingerprint(report.domain, finding),
      };
    }),
  };
}

/** The block list (its zone) or commercial feed a finding came from: a check that did not ask it cannot resolve it. */
function listOf(finding: { rule_id: string; evidence: Record<string, unknown> }): string | undefined {
  const name =
    finding.rule_id === 'mailscan.dnsbl.listed'
      ? finding.evidence.zone
      : finding.rule_id === 'mailscan.leak.commercial_feed'
        ? finding.evidence.feed
        : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The report's limit on an evidence key and a subject (report.ts). */
const MAX_NAME = 1000;

/** A key over the limit (a long Message-ID or repository path) keeps its start and names the rest by its hash, so it stays unique. */
function bounded(key: string): string {
  if (key.length <= MAX_NAME) return key;
  return `${key.slice(0, MAX_NAME - 80)} sha256=${createHash('sha256').update(key).digest('hex')}`;
}
