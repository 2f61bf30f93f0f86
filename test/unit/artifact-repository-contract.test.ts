import { afterAll } from 'vitest';
import { makeDynamoDbArtifactRepository } from '../../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { describeArtifactRepositoryContract } from '../contracts/artifact-repository-contract.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeArtifactRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbArtifactRepository(client, tableName) };
});

describeArtifactRepositoryContract('InMemoryArtifactRepository (test/fakes)', async () => ({ repo: new InMemoryArtifactRepository() }));
