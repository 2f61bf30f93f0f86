import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DigestEntry } from '../../domain/digest.ts';
import type { DigestStore } from '../../ports/digest-store.ts';
import { queryAll } from './all-items.ts';
import { batchWrite } from './batch-requests.ts';

/**
 * Digest entries in the single table, one partition per period end (`DIG#<period end>`), so the
 * hourly flush reads one partition whatever the number of tenants; the sort key
 * `<tenant>#<rule>#<event>` keeps one entry per event and rule across redeliveries. The only
 * partition key not led by a tenant: it is read whole only by the flush, which serves every tenant.
 */
const pk = (periodEnd: string) => `DIG#${periodEnd}`;
const sk = (entry: Pick<DigestEntry, 'tenant' | 'rule_id' | 'event_id'>) => `${entry.tenant}#${entry.rule_id}#${entry.event_id}`;

export function makeDynamoDbDigestStore(client: DynamoDBDocumentClient, tableName: string): DigestStore {
  return {
    async add(entries) {
      await batchWrite(
        client,
        tableName,
        entries.map((entry) => ({ PutRequest: { Item: { PK: pk(entry.period_end), SK: sk(entry), ...entry } } })),
      );
    },
    async due(periodEnd) {
      const found: DigestEntry[] = [];
      for await (const item of queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk(periodEnd) },
      })) {
        const { PK: _pk, SK: _sk, ...entry } = item;
        found.push(entry as unknown as DigestEntry);
      }
      return found;
    },
    async remove(entries) {
      await batchWrite(
        client,
        tableName,
        entries.map((entry) => ({ DeleteRequest: { Key: { PK: pk(entry.period_end), SK: sk(entry) } } })),
      );
    },
  };
}
