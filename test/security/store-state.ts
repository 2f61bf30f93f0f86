import { createHash } from 'node:crypto';
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { LOCAL_TABLE_NAME, type LocalRuntime } from '../../local/runtime.ts';

/** Everything a request could change: table items by kind, triggers, and both queues' depth. */
export interface StoreState {
  /** Items per sort-key kind (SCH, SCAN, FND, FIRE, META, ...). */
  items: Record<string, number>;
  triggers: number;
  queued: number;
  deadLettered: number;
  /** A digest of every item and trigger, so an in-place change shows too. */
  digest: string;
}

/** A client of the runtime's dynalite, for tests that read or tamper with the table directly. */
export function tableClient(runtime: LocalRuntime): DynamoDBDocumentClient {
  return makeDocumentClient({
    endpoint: runtime.dynamoEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

export async function storeState(runtime: LocalRuntime, client: DynamoDBDocumentClient): Promise<StoreState> {
  const rows: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME, ExclusiveStartKey: startKey }));
    rows.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  const items: Record<string, number> = {};
  for (const row of rows) {
    const kind = String(row.SK).split('#')[0];
    items[kind] = (items[kind] ?? 0) + 1;
  }
  const triggers = await runtime.scheduler.list();
  const scan = runtime.scanQueue.stats();
  const dead = runtime.deadLetterQueue.stats();
  const digest = createHash('sha256')
    .update(JSON.stringify(rows.map((row) => JSON.stringify(row)).sort()))
    .update(JSON.stringify(triggers.map((t) => JSON.stringify(t)).sort()))
    .digest('hex');
  return { items, triggers: triggers.length, queued: scan.visible + scan.inFlight, deadLettered: dead.visible + dead.inFlight, digest };
}
