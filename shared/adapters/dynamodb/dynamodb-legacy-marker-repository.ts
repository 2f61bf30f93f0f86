import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../domain/errors.ts';
import type { LegacyModel } from '../../domain/legacy/legacy-schedule.ts';
import type { LegacyMarker, LegacyMarkerRepository } from '../../ports/legacy-marker-repository.ts';
import { queryAll } from './all-items.ts';
import { keys } from './keys.ts';
import { conditionalWrite } from './conditional-write.ts';

const FIELDS = [
  'tenant',
  'model',
  'legacyId',
  'scheduleId',
  'legacyTaskId',
  'disablesLegacyTask',
  'state',
  'claimedAt',
  'runId',
] as const satisfies readonly (keyof LegacyMarker)[];

function fromItem(item: Record<string, unknown>): LegacyMarker {
  return Object.fromEntries(FIELDS.map((field) => [field, item[field]])) as unknown as LegacyMarker;
}

/**
 * Backfill markers in the single table: `T#<tenant>` / `LEGACY#<model>#<legacy id>`, beside the
 * tenant's schedules but outside their `SCH#` prefix, so no schedule listing or count sees them.
 */
export function makeDynamoDbLegacyMarkerRepository(client: DynamoDBDocumentClient, tableName: string): LegacyMarkerRepository {
  const key = (tenant: string, model: LegacyModel, legacyId: string) => ({
    PK: keys.tenant(tenant),
    SK: keys.legacyMarker(model, legacyId),
  });
  return {
    async get(tenant, model, legacyId) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(tenant, model, legacyId), ConsistentRead: true }));
      return Item ? fromItem(Item) : null;
    },

    async claim(marker) {
      return conditionalWrite(
        async () => {
          await client.send(
            new PutCommand({
              TableName: tableName,
              Item: { ...key(marker.tenant, marker.model, marker.legacyId), ...marker },
              ConditionExpression: 'attribute_not_exists(PK)',
            }),
          );
          return true;
        },
        () => false,
      );
    },

    async markDone(tenant, model, legacyId) {
      await conditionalWrite(
        async () => {
          await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key(tenant, model, legacyId),
              UpdateExpression: 'SET #state = :done',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':done': 'done' },
            }),
          );
        },
        () => {
          throw new NotFoundError(`no ${model} marker ${legacyId} for ${tenant}`);
        },
      );
    },

    async *list(tenant) {
      const items = queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.tenant(tenant), ':prefix': keys.legacyMarkerPrefix },
      });
      for await (const item of items) yield fromItem(item);
    },

    async delete(tenant, model, legacyId) {
      await client.send(new DeleteCommand({ TableName: tableName, Key: key(tenant, model, legacyId) }));
    },
  };
}
