import { afterAll } from 'vitest';
import { makeDynamoDbLegacyMarkerRepository } from '../../shared/adapters/dynamodb/dynamodb-legacy-marker-repository.ts';
import { describeLegacyMarkerRepositoryContract } from './legacy-marker-repository-contract.ts';
import { InMemoryLegacyMarkerRepository } from '../fakes/in-memory-legacy-marker-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeLegacyMarkerRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { markers: makeDynamoDbLegacyMarkerRepository(client, tableName) };
});

describeLegacyMarkerRepositoryContract('InMemoryLegacyMarkerRepository (test/fakes)', async () => ({
  markers: new InMemoryLegacyMarkerRepository(),
}));
