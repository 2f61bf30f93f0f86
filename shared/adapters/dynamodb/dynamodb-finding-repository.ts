import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FindingRecord } from '../../domain/finding.ts';
import type { FindingFilter, FindingRepository } from '../../ports/finding-repository.ts';
import { keys, scanKeys } from './keys.ts';
import { newestFirst, queryPage, type ListingQuery } from './query-page.ts';

const FIELDS = [
  'id', 'tenant', 'scan_id', 'schedule_id', 'scan_type', 'target', 'rule_id', 'severity', 'title', 'description',
  'evidence', 'remediation', 'fingerprint', 'first_seen_at', 'last_seen_at', 'created_at',
] as const satisfies readonly (keyof FindingRecord)[];

const BATCH_WRITE = 25;
const BATCH_GET = 100;
const MAX_ATTEMPTS = 8;

function fromItem(item: Record<string, unknown>): FindingRecord {
  return Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as FindingRecord;
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));

/**
 * Findings in the single table, written with BatchWriteItem (25 a request, unprocessed items
 * retried with backoff). Each finding has a deterministic id (scan, fingerprint), so a redelivered
 * scan rewrites its findings instead of duplicating them. A per-fingerprint item keeps first/last seen.
 */
export function makeDynamoDbFindingRepository(client: DynamoDBDocumentClient, tableName: string): FindingRepository {
  async function batchWrite(requests: Record<string, unknown>[]): Promise<void> {
    for (const chunk of chunks(requests, BATCH_WRITE)) {
      let pending = chunk;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt >= MAX_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed`);
        if (attempt > 0) await backoff(attempt);
        const output = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (output.UnprocessedItems?.[tableName] ?? []);
      }
    }
  }

  function listingFor(tenant: string, filter: FindingFilter): ListingQuery {
    const rest = { severity: filter.severity, target: filter.target };
    if (filter.scanId !== undefined) {
      return newestFirst(tableName, tenant, { index: 'GSI1', partition: scanKeys.findingsByScan(tenant, filter.scanId) }, { rule_id: filter.ruleId, ...rest });
    }
    if (filter.ruleId !== undefined) {
      return newestFirst(tableName, tenant, { index: 'GSI2', partition: scanKeys.findingsByRule(tenant, filter.ruleId) }, rest);
    }
    return newestFirst(tableName, tenant, { index: '', partition: keys.tenant(tenant), skPrefix: 'FND#' }, rest);
  }

  return {
    async firstSeen(tenant, fingerprints) {
      const seen = new Map<string, string>();
      for (const chunk of chunks([...new Set(fingerprints)], BATCH_GET)) {
        let pending: Record<string, unknown>[] = chunk.map((fingerprint) => ({ PK: keys.tenant(tenant), SK: scanKeys.fingerprint(fingerprint) }));
        for (let attempt = 0; pending.length > 0; attempt += 1) {
          if (attempt >= MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
          if (attempt > 0) await backoff(attempt);
          const output = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
          for (const item of output.Responses?.[tableName] ?? []) seen.set(String(item.fingerprint), String(item.first_seen_at));
          pending = (output.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
        }
      }
      return seen;
    },

    async save(tenant, findings) {
      const requests = findings.flatMap((finding) => [
        {
          PutRequest: {
            Item: {
              PK: keys.tenant(tenant),
              SK: scanKeys.finding(finding.id),
              GSI1PK: scanKeys.findingsByScan(tenant, finding.scan_id),
              GSI1SK: finding.id,
              GSI2PK: scanKeys.findingsByRule(tenant, finding.rule_id),
              GSI2SK: finding.id,
              ...finding,
            },
          },
        },
        {
          PutRequest: {
            Item: {
              PK: keys.tenant(tenant),
              SK: scanKeys.fingerprint(finding.fingerprint),
              fingerprint: finding.fingerprint,
              first_seen_at: finding.first_seen_at,
              last_seen_at: finding.last_seen_at,
              last_scan_id: finding.scan_id,
            },
          },
        },
      ]);
      await batchWrite(requests);
    },

    async list(tenant, filter, limit, cursor) {
      const page = await queryPage(client, listingFor(tenant, filter), limit, cursor);
      return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
    },
  };
}
