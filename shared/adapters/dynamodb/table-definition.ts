/**
 * The one definition of the service's DynamoDB table, used by the CDK stack (infra/) and by the
 * local bootstrap (local/), so the two can never drift.
 *
 * Single-table design; every partition key starts with the tenant:
 * - `PK = T#<tenant>`, `SK = SCH#<schedule id>`: a schedule (ids are ULIDs, so SK order is age order).
 * - `PK = T#<tenant>`, `SK = META#schedule-create`: the gate concurrent creates of a tenant claim (quota).
 * - GSI1 `GSI1PK = T#<tenant>#SCH#TYPE#<scan_type>`, `GSI1SK = <schedule id>`: list by scan type.
 * - GSI2 `GSI2PK = T#<tenant>#SCH#EN#<true|false>`, `GSI2SK = <schedule id>`: list by enabled.
 * - GSI3 `GSI3PK`, `GSI3SK`: issues by rule and findings by fingerprint (docs/issues.md).
 * Scans (`SCAN#`), findings (`FND#`) and issues (`ISS#`) share the partition and the indexes:
 * their keys are in keys.ts, docs/storage.md and docs/issues.md. (The `SEEN#` first-seen items
 * of earlier releases are no longer read: first seen is the issue's.)
 *
 * `ttl` (epoch seconds) is the table's time-to-live attribute: DynamoDB deletes an item some time
 * after it passes. Artifact rows (`ART#`) carry it, set to their `expires_at` (the bucket's lifecycle
 * deletes the bytes then); the fire claims (`FIRE#`) written before job ids were derived from fires
 * carry it too (docs/storage.md).
 */
export const tableDefinition = {
  partitionKey: { name: 'PK', type: 'S' },
  sortKey: { name: 'SK', type: 'S' },
  globalSecondaryIndexes: [
    { indexName: 'GSI1', partitionKey: { name: 'GSI1PK', type: 'S' }, sortKey: { name: 'GSI1SK', type: 'S' } },
    { indexName: 'GSI2', partitionKey: { name: 'GSI2PK', type: 'S' }, sortKey: { name: 'GSI2SK', type: 'S' } },
    // Added with issues: CloudFormation creates one index per table update, so add them one a release.
    { indexName: 'GSI3', partitionKey: { name: 'GSI3PK', type: 'S' }, sortKey: { name: 'GSI3SK', type: 'S' } },
  ],
  billingMode: 'PAY_PER_REQUEST',
  timeToLiveAttribute: 'ttl',
} as const;

export type KeyAttribute = { name: string; type: 'S' | 'N' };

/** The table as a DynamoDB CreateTable input (local bootstrap, tests). */
export function createTableInput(tableName: string) {
  const keys: KeyAttribute[] = [
    tableDefinition.partitionKey,
    tableDefinition.sortKey,
    ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: tableDefinition.billingMode,
    AttributeDefinitions: keys.map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey.name, KeyType: 'HASH' as const },
      { AttributeName: tableDefinition.sortKey.name, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
