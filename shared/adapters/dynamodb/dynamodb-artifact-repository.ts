import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArtifactRecord } from '../../domain/artifact.ts';
import { ConflictError } from '../../domain/errors.ts';
import type { ArtifactRepository } from '../../ports/artifact-repository.ts';
import { artifactKeys, keys } from './keys.ts';
import { conditionalWrite } from './conditional-write.ts';

const FIELDS = [
  'id',
  'tenant',
  'purpose',
  'filename',
  'size',
  'content_type',
  'status',
  'sha256',
  'reason',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof ArtifactRecord)[];

/** A scan output's links: present only on the artifacts scans wrote. */
const LINKS = ['scan_id', 'target'] as const satisfies readonly (keyof ArtifactRecord)[];

function fromItem(item: Record<string, unknown>): ArtifactRecord {
  const record = Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as ArtifactRecord;
  for (const field of LINKS) if (typeof item[field] === 'string') record[field] = item[field];
  return record;
}

/** Artifact rows in the single table (`T#<tenant>` / `ART#<id>`); the bytes expire in the store (30-day lifecycle). */
export function makeDynamoDbArtifactRepository(client: DynamoDBDocumentClient, tableName: string): ArtifactRepository {
  return {
    async create(record) {
      await conditionalWrite(
        async () => {
          await client.send(
            new PutCommand({
              TableName: tableName,
              // `ttl`: DynamoDB deletes the row some time after the bucket's lifecycle deleted the bytes.
              Item: {
                PK: keys.tenant(record.tenant),
                SK: artifactKeys.artifact(record.id),
                ...record,
                ttl: Math.ceil(Date.parse(record.expires_at) / 1000),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            }),
          );
        },
        () => {
          throw new ConflictError(`artifact ${record.id} already exists`);
        },
      );
    },

    async get(tenant, id) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: { PK: keys.tenant(tenant), SK: artifactKeys.artifact(id) } }),
      );
      return Item ? fromItem(Item) : null;
    },

    async settle(tenant, id, outcome) {
      return conditionalWrite(
        async () => {
          const { Attributes } = await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { PK: keys.tenant(tenant), SK: artifactKeys.artifact(id) },
              UpdateExpression: 'SET #status = :status, sha256 = :sha256, reason = :reason',
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':status': outcome.status,
                ':sha256': outcome.sha256,
                ':reason': outcome.reason,
                ':pending': 'pending',
              },
              ReturnValues: 'ALL_NEW',
            }),
          );
          return Attributes ? fromItem(Attributes) : null;
        },
        () => null,
      );
    },
  };
}
