import { afterAll } from 'vitest';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { describeScheduleRepositoryContract } from '../contracts/schedule-repository-contract.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

// The fake the service tests use obeys the same contract as the DynamoDB adapter it stands for.
const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeScheduleRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbScheduleRepository(client, tableName) };
});

describeScheduleRepositoryContract('InMemoryScheduleRepository (test/fakes)', async () => ({ repo: new InMemoryScheduleRepository() }));
