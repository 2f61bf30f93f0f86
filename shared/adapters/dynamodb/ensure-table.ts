import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { setTimeout as delay } from 'node:timers/promises';
import { createTableInput } from './table-definition.ts';

/** How long a created table may stay CREATING before the bootstrap gives up. */
const ACTIVE_WITHIN_MS = 10_000;

/**
 * Creates the service table from the shared definition unless it exists (local bootstrap, tests),
 * and returns once it is ACTIVE: dynalite, like DynamoDB, answers ResourceNotFound to reads of a
 * table still CREATING, and under load its switch to ACTIVE can come after the first query.
 */
export async function ensureTable(config: DynamoDBClientConfig, tableName: string): Promise<void> {
  const client = new DynamoDBClient(config);
  try {
    let status: string | undefined;
    try {
      status = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableStatus;
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      status = (await client.send(new CreateTableCommand(createTableInput(tableName)))).TableDescription?.TableStatus;
    }
    const deadline = Date.now() + ACTIVE_WITHIN_MS;
    while (status !== 'ACTIVE') {
      if (Date.now() > deadline) throw new Error(`table ${tableName} is still ${status} after ${ACTIVE_WITHIN_MS} ms`);
      await delay(10);
      status = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableStatus;
    }
  } finally {
    client.destroy();
  }
}
