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
 * first seen kept per tenant and target and written only for a fingerprint seen for the first time
 * (first_seen_at equal to last_seen_at), the earlier record kept, and the adapter's listings and
 * cursors.
 */
export class InMemoryFindingRepository implements FindingRepository {
  /** By `tenant/id`, with the tenant the finding was saved under. */
  readonly rows = new Map<string, { tenant: string; finding: FindingRecord }>();
  /** first_seen_at by fingerprint, per `tenant/target`. */
  readonly seen = new Map<string, Map<string, string>>();
  /** Every save, in order: what a test of the engine asserts about its writes. */
  readonly saves: { tenant: string; findings: FindingRecord[] }[] = [];

  async firstSeen(tenant: string, sightings: { target: string; fingerprint: string }[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    // As the adapter reads it: each target's record, asked for every fingerprint of the sightings.
    for (const target of new Set(sightings.map((sighting) => sighting.target))) {
      const record = this.seen.get(`${tenant}/${target}`);
      for (const { fingerprint } of sightings) {
        const at = record?.get(fingerprint);
        if (at !== undefined) found.set(fingerprint, at);
      }
    }
    return found;
  }

  async save(tenant: string, findings: FindingRecord[]): Promise<void> {
    this.saves.push({ tenant, findings: structuredClone(findings) });
    for (const finding of findings) this.rows.set(`${tenant}/${finding.id}`, { tenant, finding: structuredClone(finding) });
    for (const finding of findings) {
      if (finding.first_seen_at !== finding.last_seen_at) continue;
      const key = `${tenant}/${finding.target}`;
      const record = this.seen.get(key) ?? new Map<string, string>();
      // if_not_exists: of two scans recording the same new fingerprint, the first record stays.
      if (!record.has(finding.fingerprint)) record.set(finding.fingerprint, finding.first_seen_at);
      this.seen.set(key, record);
    }
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
