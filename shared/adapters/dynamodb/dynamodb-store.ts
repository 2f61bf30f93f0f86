import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDynamoDbFindingRepository } from './dynamodb-finding-repository.ts';
import { makeDynamoDbIssueRepository } from './dynamodb-issue-repository.ts';
import { makeDynamoDbScanRepository } from './dynamodb-scan-repository.ts';
import { makeDynamoDbScheduleRepository } from './dynamodb-schedule-repository.ts';

/** The repositories over one table (shared/adapters/dynamodb/table-definition.ts). */
export function makeDynamoDbStore(client: DynamoDBDocumentClient, tableName: string) {
  return {
    schedules: makeDynamoDbScheduleRepository(client, tableName),
    scans: makeDynamoDbScanRepository(client, tableName),
    findings: makeDynamoDbFindingRepository(client, tableName),
    issues: makeDynamoDbIssueRepository(client, tableName),
  };
}
