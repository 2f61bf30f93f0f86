import { afterAll } from 'vitest';
import { makeDynamoDbFindingRepository } from '../../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbScanRepository } from '../../shared/adapters/dynamodb/dynamodb-scan-repository.ts';
import { describeFindingRepositoryContract } from './finding-repository-contract.ts';
import { describeScanRepositoryContract } from './scan-repository-contract.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

// No fake of these two ports exists yet (the service tests run them on dynalite through the local
// runtime): the suites pin the adapter's behaviour, and the first fake written must pass them too.
const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeScanRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbScanRepository(client, tableName) };
});

describeFindingRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbFindingRepository(client, tableName) };
});
