import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError, QuotaExceededError } from '../../domain/errors.ts';
import type { ScheduleRecord } from '../../domain/schedule.ts';
import type { Page, ScheduleFilter, ScheduleRepository } from '../../ports/schedule-repository.ts';
import { queryAll, scanAll } from './all-items.ts';
import { newestFirst, queryPage, type ListingQuery } from './query-page.ts';
import { keys } from './keys.ts';

const RECORD_FIELDS = [
  'id',
  'tenant',
  'version',
  'name',
  'description',
  'scan_type',
  'target',
  'targets',
  'scope',
  'cadence',
  'cron_expression',
  'timezone',
  'enabled',
  'trigger_definition',
  'last_run_at',
  'last_run_status',
  'last_scan_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ScheduleRecord)[];

/** Fields update() never writes: the identity, the creation time and the run fields (recordRun/startRun own those). */
const FIXED_FIELDS = ['id', 'tenant', 'created_at', 'last_run_at', 'last_run_status', 'last_scan_id'] as const;
type FixedField = (typeof FIXED_FIELDS)[number];

/** What update() writes: every stored field but the fixed ones. */
const EDITABLE_FIELDS = RECORD_FIELDS.filter(
  (field): field is Exclude<(typeof RECORD_FIELDS)[number], FixedField> => !(FIXED_FIELDS as readonly string[]).includes(field),
);

function toItem(record: ScheduleRecord) {
  return {
    PK: keys.tenant(record.tenant),
    SK: keys.schedule(record.id),
    GSI1PK: keys.schedulesByType(record.tenant, record.scan_type),
    GSI1SK: record.id,
    GSI2PK: keys.schedulesByEnabled(record.tenant, record.enabled),
    GSI2SK: record.id,
    ...record,
  };
}

function fromItem(item: Record<string, unknown>): ScheduleRecord {
  return Object.fromEntries(RECORD_FIELDS.map((field) => [field, item[field] ?? null])) as unknown as ScheduleRecord;
}

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

/**
 * Schedules in the single table. Request paths use GetItem, Query and conditional writes only;
 * `listAll` scans, and only reconcile and the local start-up call it.
 *
 * The quota counter is a separate item changed by conditional updates around the row write,
 * because dynalite (the local DynamoDB) has no transactions; a crash between the two writes can
 * leave the counter off by one, which `recount` repairs (reconcile calls it).
 */
export function makeDynamoDbScheduleRepository(client: DynamoDBDocumentClient, tableName: string): ScheduleRepository {
  const counterKey = (tenant: string) => ({ PK: keys.tenant(tenant), SK: keys.scheduleCounter });

  async function adjustCounter(tenant: string, delta: 1 | -1, quota?: number): Promise<void> {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: counterKey(tenant),
        UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :delta',
        ConditionExpression: delta > 0 ? 'attribute_not_exists(#count) OR #count < :quota' : 'attribute_exists(#count) AND #count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':zero': 0, ':delta': delta, ...(delta > 0 ? { ':quota': quota } : {}) },
      }),
    );
  }

  async function get(tenant: string, id: string): Promise<ScheduleRecord | null> {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { PK: keys.tenant(tenant), SK: keys.schedule(id) } }));
    return Item ? fromItem(Item) : null;
  }

  async function* listAll(tenant?: string): AsyncIterable<ScheduleRecord> {
    const items =
      tenant === undefined
        ? scanAll(client, {
            TableName: tableName,
            FilterExpression: 'begins_with(SK, :sch)',
            ExpressionAttributeValues: { ':sch': 'SCH#' },
          })
        : queryAll(client, {
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sch)',
            ExpressionAttributeValues: { ':pk': keys.tenant(tenant), ':sch': 'SCH#' },
          });
    for await (const item of items) yield fromItem(item);
  }

  async function staleOrMissing(tenant: string, id: string): Promise<Error> {
    return (await get(tenant, id))
      ? new ConflictError(`schedule ${id} was changed by another request; retry`)
      : new NotFoundError(`schedule ${id} not found`);
  }

  function listingFor(tenant: string, filter: ScheduleFilter): ListingQuery {
    if (filter.scanType !== undefined) {
      return newestFirst(
        tableName,
        tenant,
        { index: 'GSI1', partition: keys.schedulesByType(tenant, filter.scanType) },
        { enabled: filter.enabled },
      );
    }
    if (filter.enabled !== undefined) {
      return newestFirst(tableName, tenant, { index: 'GSI2', partition: keys.schedulesByEnabled(tenant, filter.enabled) });
    }
    return newestFirst(tableName, tenant, { index: '', partition: keys.tenant(tenant), skPrefix: 'SCH#' });
  }

  return {
    async create(record, quota) {
      try {
        await adjustCounter(record.tenant, 1, quota);
      } catch (error) {
        if (isConditionFailure(error)) throw new QuotaExceededError(`the tenant has reached its quota of ${quota} schedules`);
        throw error;
      }
      try {
        await client.send(new PutCommand({ TableName: tableName, Item: toItem(record), ConditionExpression: 'attribute_not_exists(PK)' }));
      } catch (error) {
        await adjustCounter(record.tenant, -1);
        if (isConditionFailure(error)) throw new ConflictError(`schedule ${record.id} already exists`);
        throw error;
      }
    },

    get,

    async update(record) {
      // Only the fields a client or a toggle changes: the run fields belong to the dispatcher,
      // which updates them without a version, and a PATCH must never write them back stale.
      const item = toItem(record);
      const fields = [...EDITABLE_FIELDS, 'GSI1PK', 'GSI2PK'] as const;
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: `SET ${fields.map((field) => `#${field} = :${field}`).join(', ')}`,
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: Object.fromEntries(fields.map((field) => [`#${field}`, field])),
            ExpressionAttributeValues: {
              ...Object.fromEntries(fields.map((field) => [`:${field}`, item[field]])),
              ':expected': record.version - 1,
            },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw await staleOrMissing(record.tenant, record.id);
        throw error;
      }
    },

    async recordRun(tenant, id, run) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: keys.tenant(tenant), SK: keys.schedule(id) },
            UpdateExpression: 'SET last_run_at = :at, last_run_status = :status, last_scan_id = :scan',
            // Scan ids are ULIDs: a redelivered older fire never takes the row back from a newer scan.
            ConditionExpression:
              'attribute_exists(PK) AND (attribute_not_exists(last_scan_id) OR attribute_type(last_scan_id, :null) OR last_scan_id <= :scan)',
            ExpressionAttributeValues: {
              ':at': run.last_run_at,
              ':status': run.last_run_status,
              ':scan': run.last_scan_id,
              ':null': 'NULL',
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async startRun(tenant, id, run) {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: keys.tenant(tenant), SK: keys.schedule(id) },
            UpdateExpression: 'SET last_run_at = :at, last_run_status = :running, last_scan_id = :scan',
            // Strictly newer: a redelivered fire (the same deterministic scan id) or an older one
            // fails here and takes the read path, so it never resets a finished run to running.
            ConditionExpression:
              'attribute_exists(PK) AND enabled = :true AND (attribute_not_exists(last_scan_id) OR attribute_type(last_scan_id, :null) OR last_scan_id < :scan)',
            ExpressionAttributeValues: {
              ':at': run.last_run_at,
              ':running': 'running',
              ':scan': run.last_scan_id,
              ':true': true,
              ':null': 'NULL',
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? fromItem(Attributes) : null;
      } catch (error) {
        if (isConditionFailure(error)) return null;
        throw error;
      }
    },

    async finishRun(tenant, id, scanId, status) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: keys.tenant(tenant), SK: keys.schedule(id) },
            UpdateExpression: 'SET last_run_status = :status',
            ConditionExpression: 'last_scan_id = :scan',
            ExpressionAttributeValues: { ':status': status, ':scan': scanId },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async delete(tenant, id, expectedVersion) {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { PK: keys.tenant(tenant), SK: keys.schedule(id) },
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': expectedVersion },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw await staleOrMissing(tenant, id);
        throw error;
      }
      try {
        await adjustCounter(tenant, -1);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    async list(tenant, filter, limit, cursor): Promise<Page<ScheduleRecord>> {
      const page = await queryPage(client, listingFor(tenant, filter), limit, cursor);
      return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
    },

    listAll,

    async count(tenant) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: counterKey(tenant) }));
      return typeof Item?.count === 'number' ? Item.count : 0;
    },

    async *counters(tenant) {
      const items =
        tenant === undefined
          ? scanAll(client, {
              TableName: tableName,
              FilterExpression: 'SK = :counter',
              ExpressionAttributeValues: { ':counter': keys.scheduleCounter },
            })
          : queryAll(client, {
              TableName: tableName,
              KeyConditionExpression: 'PK = :pk AND SK = :counter',
              ExpressionAttributeValues: { ':pk': keys.tenant(tenant), ':counter': keys.scheduleCounter },
            });
      for await (const item of items) {
        if (typeof item.PK === 'string' && typeof item.count === 'number') yield { tenant: item.PK.replace(/^T#/, ''), count: item.count };
      }
    },

    async recount(tenant) {
      let count = 0;
      for await (const _record of listAll(tenant)) count += 1;
      await client.send(new PutCommand({ TableName: tableName, Item: { ...counterKey(tenant), count } }));
      return count;
    },
  };
}
