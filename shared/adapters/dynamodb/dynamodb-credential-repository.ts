import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors.ts';
import type { CredentialRecord } from '../../domain/credential.ts';
import type { CredentialRepository } from '../../ports/credential-repository.ts';
import { queryAll } from './all-items.ts';
import { credentialKeys, keys } from './keys.ts';

const FIELDS = [
  'tenant',
  'alias',
  'kind',
  'allowed_hosts',
  'description',
  'fingerprint',
  'created_at',
  'updated_at',
  'last_used_at',
  'version',
  'sealed',
] as const satisfies readonly (keyof CredentialRecord)[];

function fromItem(item: Record<string, unknown>): CredentialRecord {
  return Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as CredentialRecord;
}

/**
 * Credentials in the tenant's partition (`CRD#<alias>`): the key holds the tenant, so no read or
 * write of one tenant can name another's item. The item holds the sealed secret only
 * (credential-envelope.ts), never the plaintext.
 */
export function makeDynamoDbCredentialRepository(client: DynamoDBDocumentClient, tableName: string): CredentialRepository {
  const key = (tenant: string, alias: string) => ({ PK: keys.tenant(tenant), SK: credentialKeys.credential(alias) });
  const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

  return {
    async create(record) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...key(record.tenant, record.alias), ...record },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`credential ${record.alias} already exists`);
        throw error;
      }
    },

    async get(tenant, alias) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(tenant, alias), ConsistentRead: true }));
      return Item ? fromItem(Item) : null;
    },

    async list(tenant) {
      const records: CredentialRecord[] = [];
      for await (const item of queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.tenant(tenant), ':prefix': credentialKeys.prefix },
        ConsistentRead: true,
      })) {
        records.push(fromItem(item));
      }
      return records;
    },

    async update(record) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...key(record.tenant, record.alias), ...record },
            ConditionExpression: 'version = :previous',
            ExpressionAttributeValues: { ':previous': record.version - 1 },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('the credential changed meanwhile; read it again');
        throw error;
      }
    },

    async delete(tenant, alias) {
      try {
        await client.send(
          new DeleteCommand({ TableName: tableName, Key: key(tenant, alias), ConditionExpression: 'attribute_exists(PK)' }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async touch(tenant, alias, at) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(tenant, alias),
            UpdateExpression: 'SET last_used_at = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':at': at },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
