import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { createTableInput } from './table-definition.ts';

/** Creates the service table from the shared definition unless it exists (local bootstrap, tests). */
export async function ensureTable(config: DynamoDBClientConfig, tableName: string): Promise<void> {
  const client = new DynamoDBClient(config);
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    client.destroy();
  }
}
