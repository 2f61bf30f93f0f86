import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SEVERITIES } from '../../../lib/severity.ts';
import type { SlaView } from '../../domain/sla.ts';
import type { SlaRepository } from '../../ports/sla-repository.ts';
import { keys, settingsKeys } from './keys.ts';

/** The tenant's SLA as one item in its partition (`SK = SET#sla`). */
export function makeDynamoDbSlaRepository(client: DynamoDBDocumentClient, tableName: string): SlaRepository {
  const key = (tenant: string) => ({ PK: keys.tenant(tenant), SK: settingsKeys.sla });
  return {
    async get(tenant) {
      const output = await client.send(new GetCommand({ TableName: tableName, Key: key(tenant) }));
      if (!output.Item) return null;
      const item = output.Item;
      return {
        ...(Object.fromEntries(SEVERITIES.map((severity) => [severity, (item[severity] as number | null | undefined) ?? null])) as Record<
          (typeof SEVERITIES)[number],
          number | null
        >),
        updated_at: (item.updated_at as string | undefined) ?? null,
        updated_by: (item.updated_by as string | undefined) ?? null,
      };
    },
    async put(tenant, sla: SlaView) {
      await client.send(new PutCommand({ TableName: tableName, Item: { ...key(tenant), tenant, ...sla } }));
    },
  };
}
