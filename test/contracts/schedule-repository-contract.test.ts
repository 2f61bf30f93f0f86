import { afterAll } from 'vitest';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { describeScheduleRepositoryContract } from './schedule-repository-contract.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

// The fake the service tests use obeys the same contract as the DynamoDB adapter it stands for.
const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeScheduleRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  let trap: 'off' | 'armed' | 'dead' = 'off';
  // The client is shared by the file's tables: the trap acts on this table only. Once the row put
  // is reached, nothing of the dying create reaches the store (a compensating write neither).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; Item?: { SK?: string } };
      if (trap !== 'off' && input.TableName === tableName) {
        if (trap === 'armed' && context.commandName === 'PutItemCommand' && input.Item?.SK?.startsWith('SCH#')) trap = 'dead';
        if (trap === 'dead') throw new Error('process killed');
      }
      return next(args);
    },
    { step: 'initialize', name: `dieBeforeRowWrite-${tableName}` },
  );
  const repo = makeDynamoDbScheduleRepository(client, tableName);
  return {
    repo,
    async createThatDies(record, quota) {
      trap = 'armed';
      try {
        await repo.create(record, quota);
      } catch {
        // The death the test asked for.
      } finally {
        trap = 'off';
      }
    },
  };
});

describeScheduleRepositoryContract('InMemoryScheduleRepository (test/fakes)', async () => {
  const repo = new InMemoryScheduleRepository();
  return {
    repo,
    async createThatDies(record, quota) {
      repo.failNextWrite = new Error('process killed');
      await repo.create(record, quota).catch(() => undefined);
    },
  };
});
