import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FindingRecord } from '../../domain/finding.ts';
import type { FindingFilter, FindingRepository } from '../../ports/finding-repository.ts';
import { batchWrite } from './batch-requests.ts';
import { keys, scanKeys } from './keys.ts';
import { newestFirst, queryPage, type ListingQuery } from './query-page.ts';

const FIELDS = [
  'id',
  'tenant',
  'scan_id',
  'subject',
  'schedule_id',
  'scan_type',
  'target',
  'rule_id',
  'severity',
  'title',
  'description',
  'evidence',
  'remediation',
  'fingerprint',
  'first_seen_at',
  'last_seen_at',
  'created_at',
] as const satisfies readonly (keyof FindingRecord)[];

function fromItem(item: Record<string, unknown>): FindingRecord {
  return Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as FindingRecord;
}

/**
 * Findings in the single table, written with BatchWriteItem (25 a request, unprocessed items
 * retried with backoff). Each finding has a deterministic id (scan, fingerprint), so a redelivered
 * scan rewrites its findings instead of duplicating them. First seen comes from the finding's issue
 * (docs/issues.md); GSI3 keeps the findings of one fingerprint together: the occurrences.
 */
export function makeDynamoDbFindingRepository(client: DynamoDBDocumentClient, tableName: string): FindingRepository {
  function listingFor(tenant: string, filter: FindingFilter): ListingQuery {
    const rest = { severity: filter.severity, target: filter.target };
    if (filter.scanId !== undefined) {
      return newestFirst(
        tableName,
        tenant,
        { index: 'GSI1', partition: scanKeys.findingsByScan(tenant, filter.scanId) },
        { rule_id: filter.ruleId, ...rest },
      );
    }
    if (filter.ruleId !== undefined) {
      return newestFirst(tableName, tenant, { index: 'GSI2', partition: scanKeys.findingsByRule(tenant, filter.ruleId) }, rest);
    }
    return newestFirst(tableName, tenant, { index: '', partition: keys.tenant(tenant), skPrefix: 'FND#' }, rest);
  }

  return {
    async save(tenant, findings) {
      const requests = findings.map((finding) => ({
        PutRequest: {
          Item: {
            PK: keys.tenant(tenant),
            SK: scanKeys.finding(finding.id),
            GSI1PK: scanKeys.findingsByScan(tenant, finding.scan_id),
            GSI1SK: finding.id,
            GSI2PK: scanKeys.findingsByRule(tenant, finding.rule_id),
            GSI2SK: finding.id,
            GSI3PK: scanKeys.findingsByFingerprint(tenant, finding.fingerprint),
            GSI3SK: finding.id,
            ...finding,
          },
        },
      }));
      await batchWrite(client, tableName, requests);
    },

    async occurrences(tenant, fingerprint, limit) {
      const output = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'GSI3',
          KeyConditionExpression: 'GSI3PK = :pk',
          ExpressionAttributeValues: { ':pk': scanKeys.findingsByFingerprint(tenant, fingerprint) },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (output.Items ?? []).map(fromItem);
    },

    async list(tenant, filter, limit, cursor) {
      const page = await queryPage(client, listingFor(tenant, filter), limit, cursor);
      return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
    },
  };
}
