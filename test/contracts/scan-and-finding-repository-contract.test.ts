import { afterAll } from 'vitest';
import { makeDynamoDbFindingRepository } from '../../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbScanRepository } from '../../shared/adapters/dynamodb/dynamodb-scan-repository.ts';
import { describeFindingRepositoryContract } from './finding-repository-contract.ts';
import { describeScanRepositoryContract } from './scan-repository-contract.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';
import { InMemoryFindingRepository } from '../fakes/in-memory-finding-repository.ts';
import { InMemoryScanRepository } from '../fakes/in-memory-scan-repository.ts';

// The adapter is the truth: where the fake and the adapter disagree, the fake is fixed.
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

describeScanRepositoryContract('in-memory fake', async () => ({ repo: new InMemoryScanRepository() }));

describeFindingRepositoryContract('in-memory fake', async () => ({ repo: new InMemoryFindingRepository() }));
