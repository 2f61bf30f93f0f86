import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ScanJobRecord } from '../../domain/scan-job.ts';
import type { ScanFilter, ScanRepository } from '../../ports/scan-repository.ts';
import { scanAll } from './all-items.ts';
import { conditionalWrite } from './conditional-write.ts';
import { keys, scanKeys } from './keys.ts';
import { newestFirst, queryPage, type ListingQuery } from './query-page.ts';
import { targetDigest } from './target-digest.ts';

const FIELDS = [
  'id',
  'tenant',
  'scan_type',
  'target',
  'targets',
  'scope',
  'source_type',
  'schedule_id',
  'trigger',
  'scheduled_time',
  'status',
  'created_at',
  'started_at',
  'finished_at',
  'finding_count',
  'summary',
  'errors',
  'checks',
  'log',
  'changes',
] as const satisfies readonly (keyof ScanJobRecord)[];

function fromItem(item: Record<string, unknown>): ScanJobRecord {
  const record = Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as ScanJobRecord;
  // Jobs stored before checks existed have none.
  record.checks ??= [];
  // Only scans whose engine produced documents have outputs (written with `changes`).
  if (Array.isArray(item.outputs)) record.outputs = item.outputs as ScanJobRecord['outputs'];
  // Only finished jobs have them (written with `changes`).
  return item.change_ids ? { ...record, change_ids: item.change_ids as ScanJobRecord['change_ids'] } : record;
}

/** What a search of the scans list looks in: every target of the job, lower case, one a line. */
export function scanSearchText(job: Pick<ScanJobRecord, 'target' | 'targets'>): string {
  return [job.target, ...job.targets].join('\n').toLowerCase();
}

/**
 * Narrows a listing to jobs whose targets contain `search` (any case). Jobs stored before
 * `search_text` existed are matched on their target as stored, case and all (docs/storage.md).
 */
function withSearch(listing: ListingQuery, search: string): ListingQuery {
  const { input } = listing;
  const condition = '(contains(#s_text, :s_lower) OR contains(#s_target, :s_raw))';
  return {
    ...listing,
    input: {
      ...input,
      FilterExpression: input.FilterExpression ? `${input.FilterExpression} AND ${condition}` : condition,
      ExpressionAttributeNames: { ...input.ExpressionAttributeNames, '#s_text': 'search_text', '#s_target': 'target' },
      ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':s_lower': search.toLowerCase(), ':s_raw': search },
    },
  };
}

/**
 * ScanJobs in the single table; request paths use GetItem, Query and conditional writes only.
 * Listings: by target (GSI3), by schedule (GSI2), by scan type (GSI1), else the tenant's scans;
 * the other filters narrow the chosen partition. Jobs written before the target index existed
 * have no GSI3 key and are not in a by-target listing (docs/storage.md).
 */
export function makeDynamoDbScanRepository(client: DynamoDBDocumentClient, tableName: string): ScanRepository {
  function listingFor(tenant: string, filter: ScanFilter): ListingQuery {
    const listing = partitionListingFor(tenant, filter);
    return filter.search === undefined ? listing : withSearch(listing, filter.search);
  }

  function partitionListingFor(tenant: string, filter: ScanFilter): ListingQuery {
    if (filter.target !== undefined) {
      return newestFirst(
        tableName,
        tenant,
        { index: 'GSI3', partition: scanKeys.scansByTarget(tenant, targetDigest(filter.target)) },
        { scan_type: filter.scanType, status: filter.status, source_type: filter.sourceType, schedule_id: filter.scheduleId },
      );
    }
    if (filter.scheduleId !== undefined) {
      return newestFirst(
        tableName,
        tenant,
        { index: 'GSI2', partition: scanKeys.scansBySchedule(tenant, filter.scheduleId) },
        { scan_type: filter.scanType, status: filter.status, source_type: filter.sourceType },
      );
    }
    if (filter.scanType !== undefined) {
      return newestFirst(
        tableName,
        tenant,
        { index: 'GSI1', partition: scanKeys.scansByType(tenant, filter.scanType) },
        { status: filter.status, source_type: filter.sourceType },
      );
    }
    return newestFirst(
      tableName,
      tenant,
      { index: '', partition: keys.tenant(tenant), skPrefix: 'SCAN#' },
      { status: filter.status, source_type: filter.sourceType },
    );
  }

  return {
    async create(job) {
      return conditionalWrite(
        async () => {
          await client.send(
            new PutCommand({
              TableName: tableName,
              Item: {
                PK: keys.tenant(job.tenant),
                SK: scanKeys.scan(job.id),
                GSI1PK: scanKeys.scansByType(job.tenant, job.scan_type),
                GSI1SK: job.id,
                ...(job.schedule_id ? { GSI2PK: scanKeys.scansBySchedule(job.tenant, job.schedule_id), GSI2SK: job.id } : {}),
                GSI3PK: scanKeys.scansByTarget(job.tenant, targetDigest(job.target)),
                GSI3SK: job.id,
                search_text: scanSearchText(job),
                ...job,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            }),
          );
          return true;
        },
        () => false,
      );
    },

    async get(tenant, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { PK: keys.tenant(tenant), SK: scanKeys.scan(id) } }));
      return Item ? fromItem(Item) : null;
    },

    async transition(tenant, id, from, changes) {
      const entries = Object.entries(changes).filter(([field]) => field !== 'id' && field !== 'tenant');
      return conditionalWrite(
        async () => {
          await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { PK: keys.tenant(tenant), SK: scanKeys.scan(id) },
              UpdateExpression: `SET ${entries.map(([field]) => `#${field} = :${field}`).join(', ')}`,
              ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
              ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(entries.map(([field]) => [`#${field}`, field])) },
              ExpressionAttributeValues: {
                ...Object.fromEntries(entries.map(([field, value]) => [`:${field}`, value])),
                ...Object.fromEntries(from.map((status, i) => [`:from${i}`, status])),
              },
            }),
          );
          return true;
        },
        () => false,
      );
    },

    async *listUnfinished() {
      const items = scanAll(client, {
        TableName: tableName,
        FilterExpression: 'begins_with(SK, :scan) AND #status IN (:queued, :running)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':scan': 'SCAN#', ':queued': 'queued', ':running': 'running' },
      });
      for await (const item of items) yield fromItem(item);
    },

    async list(tenant, filter, limit, cursor) {
      const page = await queryPage(client, listingFor(tenant, filter), limit, cursor);
      return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
    },
  };
}
