import { keys, scanKeys } from '../../shared/adapters/dynamodb/keys.ts';
import type { FindingRecord } from '../../shared/domain/finding.ts';
import type { FindingFilter, FindingRepository } from '../../shared/ports/finding-repository.ts';
import type { Page } from '../../shared/ports/page.ts';
import { pageOf, type Listing } from './in-memory-listing.ts';

/** The listing the DynamoDB adapter reads for a filter: by scan (GSI1), by rule (GSI2), else the tenant's findings. */
function listingOf(tenant: string, filter: FindingFilter): Listing {
  if (filter.scanId !== undefined) return { index: 'GSI1', partition: scanKeys.findingsByScan(tenant, filter.scanId) };
  if (filter.ruleId !== undefined) return { index: 'GSI2', partition: scanKeys.findingsByRule(tenant, filter.ruleId) };
  return { index: '', partition: keys.tenant(tenant), skPrefix: 'FND#' };
}

/**
 * An in-memory FindingRepository with the semantics of the DynamoDB one, held to it by
 * test/contracts/finding-repository-contract.ts: findings stored by id (rewriting one replaces it),
 * one fingerprint's findings newest first (an issue's occurrences), and the adapter's listings and
 * cursors. First seen is the (InMemoryIssueRepository).
 */
export class InMemoryFindingRepository implements FindingRepository {
  /** By `tenant/id`, with the tenant the finding was saved under. */
  readonly rows = new Map<string, { tenant: string; finding: FindingRecord }>();
  /** Every save, in order: what a test of the engine asserts about its writes. */
  readonly saves: { tenant: string; findings: FindingRecord[] }[] = [];

  async save(tenant: string, findings: FindingRecord[]): Promise<void> {
    this.saves.push({ tenant, findings: structuredClone(findings) });
    for (const finding of findings) this.rows.set(`${tenant}/${finding.id}`, { tenant, finding: structuredClone(finding) });
  }

  async occurrences(tenant: string, fingerprint: string, limit: number): Promise<FindingRecord[]> {
    return [...this.rows.values()]
      .filter((row) => row.tenant === tenant && row.finding.fingerprint === fingerprint)
      .map((row) => structuredClone(row.finding))
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, limit);
  }

  async list(tenant: string, filter: FindingFilter, limit: number, cursor?: string): Promise<Page<FindingRecord>> {
    const rows = [...this.rows.values()]
      .filter((row) => row.tenant === tenant)
      .map((row) => row.finding)
      .filter(
        (finding) =>
          (filter.scanId === undefined || finding.scan_id === filter.scanId) &&
          (filter.ruleId === undefined || finding.rule_id === filter.ruleId) &&
          (filter.severity === undefined || finding.severity === filter.severity) &&
          (filter.target === undefined || finding.target === filter.target),
      );
    const keyOf = (finding: FindingRecord) => ({
      PK: keys.tenant(tenant),
      SK: scanKeys.finding(finding.id),
      GSI1PK: scanKeys.findingsByScan(tenant, finding.scan_id),
      GSI1SK: finding.id,
      GSI2PK: scanKeys.findingsByRule(tenant, finding.rule_id),
      GSI2SK: finding.id,
    });
    return pageOf(tenant, listingOf(tenant, filter), rows, keyOf, limit, cursor);
  }
}
