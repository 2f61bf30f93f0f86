import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors.ts';
import type { NotificationRuleRecord } from '../../domain/notification.ts';
import type { NotificationRuleRepository } from '../../ports/notification-rule-repository.ts';
import { queryAll } from './all-items.ts';
import { keys, notificationKeys } from './keys.ts';

const FIELDS = [
  'id',
  'tenant',
  'name',
  'kind',
  'url',
  'address',
  'events',
  'min_severity',
  'scan_types',
  'schedule_ids',
  'delivery',
  'enabled',
  'created_at',
  'updated_at',
  'version',
  'secret',
] as const satisfies readonly (keyof NotificationRuleRecord)[];

function fromItem(item: Record<string, unknown>): NotificationRuleRecord {
  const rule = Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as NotificationRuleRecord;
  // Rules made before digests send each event.
  rule.delivery ??= 'each';
  return rule;
}

/** Notification rules in the tenant's partition (`NTF#<id>`): GetItem, one Query for all, conditional writes. */
export function makeDynamoDbNotificationRuleRepository(client: DynamoDBDocumentClient, tableName: string): NotificationRuleRepository {
  const key = (tenant: string, id: string) => ({ PK: keys.tenant(tenant), SK: notificationKeys.rule(id) });
  const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

  return {
    async create(rule) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...key(rule.tenant, rule.id), ...rule },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`notification rule ${rule.id} already exists`);
        throw error;
      }
    },

    async get(tenant, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(tenant, id), ConsistentRead: true }));
      return Item ? fromItem(Item) : null;
    },

    async list(tenant) {
      const rules: NotificationRuleRecord[] = [];
      for await (const item of queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.tenant(tenant), ':prefix': notificationKeys.prefix },
        ConsistentRead: true,
      })) {
        rules.push(fromItem(item));
      }
      return rules;
    },

    async update(rule) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...key(rule.tenant, rule.id), ...rule },
            ConditionExpression: 'version = :previous',
            ExpressionAttributeValues: { ':previous': rule.version - 1 },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('the notification rule changed meanwhile; read it again');
        throw error;
      }
    },

    async delete(tenant, id) {
      try {
        await client.send(new DeleteCommand({ TableName: tableName, Key: key(tenant, id), ConditionExpression: 'attribute_exists(PK)' }));
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
}
