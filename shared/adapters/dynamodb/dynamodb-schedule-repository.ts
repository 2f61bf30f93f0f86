import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError, QuotaExceededError } from '../../domain/errors.ts';
import type { ScheduleRecord } from '../../domain/schedule.ts';
import type { Page } from '../../ports/page.ts';
import type { ScheduleFilter, ScheduleRepository } from '../../ports/schedule-repository.ts';
import { queryAll, scanAll } from './all-items.ts';
import { newestFirst, queryPage, type ListingQuery } from './query-page.ts';
import { keys } from './keys.ts';
import { conditionalWrite } from './conditional-write.ts';

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

/**
 * How long a create's reservation (the gate's `pending`) holds a slot while its row is not there:
 * longer than any call that creates a schedule can last (the API functions time out at 10 s, API
 * Gateway at 30 s), so a reservation older than this belongs to a create that died.
 */
export const RESERVATION_MS = 60_000;

/** Rounds of read-and-claim a create tries against concurrent creates of the tenant before a 409. */
const CREATE_ROUNDS = 25;

/**
 * Schedules in the single table. Request paths use GetItem, Query and conditional writes only;
 * `listAll` scans, and only reconcile and the local start-up call it.
 *
 * The quota count is derived from the rows, never stored, so no crash can make it drift
 * (docs/storage.md). Concurrent creates of one tenant serialise on a gate item: each reads the gate
 * and the rows, then claims the gate on the sequence it read (naming itself as `pending`) before it
 * puts its row; a claim that loses starts over.
 */
export function makeDynamoDbScheduleRepository(client: DynamoDBDocumentClient, tableName: string): ScheduleRepository {
  const gateKey = (tenant: string) => ({ PK: keys.tenant(tenant), SK: keys.scheduleCreateGate });

  /**
   * The ids of the tenant's rows, read consistently: what the quota counts. With `atMost`, reading
   * stops there (a create only needs to know whether the tenant is at its quota).
   */
  async function rowIds(tenant: string, atMost = Infinity): Promise<Set<string>> {
    const ids = new Set<string>();
    const items = queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sch)',
      ExpressionAttributeValues: { ':pk': keys.tenant(tenant), ':sch': 'SCH#' },
      ProjectionExpression: 'SK',
      ConsistentRead: true,
    });
    for await (const item of items) {
      ids.add(String(item.SK).slice('SCH#'.length));
      if (ids.size >= atMost) break;
    }
    return ids;
  }

  /**
   * Reads the gate and the rows, refuses past the quota, and claims the gate on the sequence it
   * read. False when another create claimed it meanwhile (the caller reads again).
   */
  async function reserve(record: ScheduleRecord, quota: number): Promise<boolean> {
    const { Item: gate } = await client.send(new GetCommand({ TableName: tableName, Key: gateKey(record.tenant), ConsistentRead: true }));
    const sequence = typeof gate?.sequence === 'number' ? gate.sequence : 0;
    const rows = await rowIds(record.tenant, quota);
    // The previous claimant's row may not be written yet: its slot is taken until it is, or until
    // the reservation is too old to belong to a create still running.
    const pending = typeof gate?.pending === 'string' ? gate.pending : null;
    const pendingHolds =
      pending !== null &&
      pending !== record.id &&
      !rows.has(pending) &&
      Date.parse(record.created_at) - Date.parse(String(gate?.pending_at)) < RESERVATION_MS;
    if (rows.size + (pendingHolds ? 1 : 0) >= quota) throw new QuotaExceededError(`the tenant has reached its quota of ${quota} schedules`);
    return conditionalWrite(
      async () => {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: gateKey(record.tenant),
            UpdateExpression: 'SET #sequence = :next, #pending = :id, #pendingAt = :at',
            ConditionExpression: sequence === 0 ? 'attribute_not_exists(#sequence)' : '#sequence = :sequence',
            ExpressionAttributeNames: { '#sequence': 'sequence', '#pending': 'pending', '#pendingAt': 'pending_at' },
            ExpressionAttributeValues: {
              ':next': sequence + 1,
              ':id': record.id,
              ':at': record.created_at,
              ...(sequence === 0 ? {} : { ':sequence': sequence }),
            },
          }),
        );
        return true;
      },
      () => false,
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
      let reserved = false;
      for (let round = 0; round < CREATE_ROUNDS && !reserved; round += 1) reserved = await reserve(record, quota);
      if (!reserved) throw new ConflictError('too many schedules are being created at once for this tenant; retry');
      await conditionalWrite(
        async () => {
          await client.send(
            new PutCommand({ TableName: tableName, Item: toItem(record), ConditionExpression: 'attribute_not_exists(PK)' }),
          );
        },
        () => {
          throw new ConflictError(`schedule ${record.id} already exists`);
        },
      );
    },

    get,

    async update(record) {
      // Only the fields a client or a toggle changes: the run fields belong to the dispatcher,
      // which updates them without a version, and a PATCH must never write them back stale.
      const item = toItem(record);
      const fields = [...EDITABLE_FIELDS, 'GSI1PK', 'GSI2PK'] as const;
      await conditionalWrite(
        async () => {
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
        },
        async () => {
          throw await staleOrMissing(record.tenant, record.id);
        },
      );
    },

    async recordRun(tenant, id, run) {
      return conditionalWrite(
        async () => {
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
        },
        () => false,
      );
    },

    async startRun(tenant, id, run) {
      return conditionalWrite(
        async () => {
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
        },
        () => null,
      );
    },

    async delete(tenant, id, expectedVersion) {
      await conditionalWrite(
        async () => {
          await client.send(
            new DeleteCommand({
              TableName: tableName,
              Key: { PK: keys.tenant(tenant), SK: keys.schedule(id) },
              ConditionExpression: '#version = :expected',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':expected': expectedVersion },
            }),
          );
        },
        async () => {
          throw await staleOrMissing(tenant, id);
        },
      );
    },

    async list(tenant, filter, limit, cursor): Promise<Page<ScheduleRecord>> {
      const page = await queryPage(client, listingFor(tenant, filter), limit, cursor);
      return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
    },

    listAll,

    async count(tenant) {
      return (await rowIds(tenant)).size;
    },
  };
}
