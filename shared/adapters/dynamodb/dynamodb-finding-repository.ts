import { createHash } from 'node:crypto';
import { BatchGetCommand, BatchWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FindingRecord } from '../../domain/finding.ts';
import type { FindingFilter, FindingRepository } from '../../ports/finding-repository.ts';
import { retry } from '../../../layers/engine-kit/src/retry.ts';
import { keys, scanKeys } from './keys.ts';
import { newestFirst, queryPage, type ListingQuery } from './query-page.ts';

const FIELDS = [
  'id',
  'tenant',
  'scan_id',
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

const BATCH_WRITE = 25;
const BATCH_GET = 100;
/** New fingerprints per UpdateItem: keeps the update expression well inside its 4 KB limit. */
const SEEN_PER_UPDATE = 60;

/** Targets can be long URLs; the first-seen item's key holds a digest of the target instead. */
const targetHash = (target: string) => createHash('sha256').update(target).digest('hex').slice(0, 32);
/** Fingerprints are hex digests, so `f` + fingerprint is a valid attribute name. */
const seenAttribute = (fingerprint: string) => `f${fingerprint}`;

function fromItem(item: Record<string, unknown>): FindingRecord {
  return Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as FindingRecord;
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** What a batch call left unprocessed after its last attempt. */
class Unprocessed extends Error {}

/**
 * Sends `pending` with `send` until nothing is left unprocessed: 8 calls at most, full-jitter
 * backoff from 50 ms doubling to 3.2 s between them (DynamoDB throttles partitions briefly). A
 * failed call is not retried here: the SDK's own retries already ran for it.
 */
async function untilProcessed<T>(pending: T[], send: (pending: T[]) => Promise<T[]>, left: (count: number) => string): Promise<void> {
  await retry(
    async () => {
      pending = await send(pending);
      if (pending.length > 0) throw new Unprocessed(left(pending.length));
    },
    { attempts: 8, baseMs: 50, maxMs: 3_200, retryable: (error) => error instanceof Unprocessed },
  );
}

/**
 * Findings in the single table, written with BatchWriteItem (25 a request, unprocessed items
 * retried with backoff). Each finding has a deterministic id (scan, fingerprint), so a redelivered
 * scan rewrites its findings instead of duplicating them. First seen lives in one item per target
 * (`SEEN#<target digest>`, an attribute per fingerprint), read with one BatchGetItem for up to 100
 * targets and extended with `if_not_exists` only when a fingerprint is new: a scan of known
 * findings costs one write per finding and nothing more (docs/scans.md). Last seen is the newest
 * finding's.
 */
export function makeDynamoDbFindingRepository(client: DynamoDBDocumentClient, tableName: string): FindingRepository {
  async function batchWrite(requests: Record<string, unknown>[]): Promise<void> {
    for (const chunk of chunks(requests, BATCH_WRITE)) {
      await untilProcessed(
        chunk,
        async (pending) => {
          const output = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          return output.UnprocessedItems?.[tableName] ?? [];
        },
        (count) => `BatchWriteItem left ${count} items unprocessed`,
      );
    }
  }

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
    async firstSeen(tenant, sightings) {
      const seen = new Map<string, string>();
      const targets = [...new Set(sightings.map((sighting) => sighting.target))];
      for (const chunk of chunks(targets, BATCH_GET)) {
        const targetKeys: Record<string, unknown>[] = chunk.map((target) => ({
          PK: keys.tenant(tenant),
          SK: scanKeys.firstSeen(targetHash(target)),
        }));
        await untilProcessed(
          targetKeys,
          async (pending) => {
            const output = await client.send(
              new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
            );
            for (const item of output.Responses?.[tableName] ?? []) {
              for (const { fingerprint } of sightings) {
                const at: unknown = item[seenAttribute(fingerprint)];
                if (typeof at === 'string') seen.set(fingerprint, at);
              }
            }
            return (output.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
          },
          (count) => `BatchGetItem left ${count} keys unprocessed`,
        );
      }
      return seen;
    },

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
            ...finding,
          },
        },
      }));
      await batchWrite(requests);
      // Fingerprints seen for the first time (first seen = last seen = this scan), per target. The
      // findings go first: a crash in between only means the next run records them as new again.
      const fresh = new Map<string, FindingRecord[]>();
      for (const finding of findings) {
        if (finding.first_seen_at === finding.last_seen_at) fresh.set(finding.target, [...(fresh.get(finding.target) ?? []), finding]);
      }
      for (const [target, newOnes] of fresh) {
        for (const chunk of chunks(newOnes, SEEN_PER_UPDATE)) {
          const names: Record<string, string> = { '#target': 'target' };
          const values: Record<string, unknown> = { ':target': target };
          const sets = chunk.map((finding, i) => {
            names[`#f${i}`] = seenAttribute(finding.fingerprint);
            values[`:t${i}`] = finding.first_seen_at;
            // if_not_exists: two scans seeing the same new fingerprint at once keep the earlier record.
            return `#f${i} = if_not_exists(#f${i}, :t${i})`;
          });
          await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { PK: keys.tenant(tenant), SK: scanKeys.firstSeen(targetHash(target)) },
              UpdateExpression: `SET #target = :target, ${sets.join(', ')}`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            }),
          );
        }
      }
    },

    async list(tenant, filter, limit, cursor) {
      const page = await queryPage(client, listingFor(tenant, filter), limit, cursor);
      return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
    },
  };
}
