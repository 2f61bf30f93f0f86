import { afterAll } from 'vitest';
import { makeDynamoDbNotificationRuleRepository } from '../../shared/adapters/dynamodb/dynamodb-notification-rule-repository.ts';
import { describeNotificationRuleRepositoryContract } from './notification-rule-repository-contract.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeNotificationRuleRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbNotificationRuleRepository(client, tableName) };
});

describeNotificationRuleRepositoryContract('in-memory fake', async () => ({ repo: new InMemoryNotificationRuleRepository() }));
