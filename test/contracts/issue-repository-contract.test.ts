import { afterAll } from 'vitest';
import { makeDynamoDbIssueRepository } from '../../shared/adapters/dynamodb/dynamodb-issue-repository.ts';
import { describeIssueRepositoryContract } from './issue-repository-contract.ts';
import { InMemoryIssueRepository } from '../fakes/in-memory-issue-repository.ts';
import { DynaliteTables } from '../helpers/dynalite-tables.ts';

const dynalite = new DynaliteTables();
afterAll(() => dynalite.close());

describeIssueRepositoryContract('DynamoDB adapter on dynalite', async () => {
  const { client, tableName } = await dynalite.freshTable();
  return { repo: makeDynamoDbIssueRepository(client, tableName) };
});

describeIssueRepositoryContract('in-memory fake', async () => ({ repo: new InMemoryIssueRepository() }));
