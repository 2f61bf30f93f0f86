import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect, it } from 'vitest';
import { makeDynamoDbArtifactRepository } from '../../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { describeArtifactRepositoryContract } from './artifact-repository-contract.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeArtifactRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbArtifactRepository(client, tableName) };
});

describeArtifactRepositoryContract('InMemoryArtifactRepository (test/fakes)', async () => ({ repo: new InMemoryArtifactRepository() }));

it('DynamoDB adapter: an artifact row carries the table TTL at its expiry, and reads never show it', async () => {
  const { client, tableName } = await dynalite.freshTable();
  const repo = makeDynamoDbArtifactRepository(client, tableName);
  const record = {
    id: 'art_01HZ00000000000000000000TT',
    tenant: 'acme',
    purpose: 'rua' as const,
    filename: 'report.xml',
    size: 10,
    content_type: 'application/xml',
    status: 'pending' as const,
    sha256: null,
    reason: null,
    created_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-31T10:00:00.000Z',
  };
  await repo.create(record);

  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: { PK: 'T#acme', SK: 'ART#art_01HZ00000000000000000000TT' } }),
  );
  expect(Item?.ttl).toBe(Date.parse('2026-03-31T10:00:00.000Z') / 1000);
  expect(await repo.get('acme', record.id)).toEqual(record);
});
