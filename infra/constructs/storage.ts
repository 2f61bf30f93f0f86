import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import { tableDefinition, type KeyAttribute } from '../../shared/adapters/dynamodb/table-definition.ts';
import type { ServiceFunction } from './service-function.ts';

export interface StorageProps {
  removalPolicy: RemovalPolicy;
}

/** A DynamoDB action a function may be granted on the table (without the `dynamodb:` prefix). */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  /** Maintenance only (reconcile): request paths never scan. */
  | 'Scan'
  /** Query on one index of the table, named (no `index/*`): `Query` alone is the table's own. */
  | `Query@${(typeof tableDefinition.globalSecondaryIndexes)[number]['indexName']}`;

function attribute(key: KeyAttribute): Attribute {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}

/**
 * The service's single DynamoDB table, built from shared/adapters/dynamodb/table-definition.ts
 * (the same module the local bootstrap uses), with point-in-time recovery always on.
 */
export class Storage extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    const retain = props.removalPolicy === RemovalPolicy.RETAIN;

    this.table = new Table(this, 'Table', {
      partitionKey: attribute(tableDefinition.partitionKey),
      sortKey: attribute(tableDefinition.sortKey),
      billingMode: BillingMode[tableDefinition.billingMode],
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: props.removalPolicy,
      // A retained table is also protected against a `DeleteTable` by hand.
      deletionProtection: retain,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        // Same projection as createTableInput(): list pages are served from the index alone.
        projectionType: ProjectionType.ALL,
      });
    }
  }

  /**
   * Give `fn` the table name and exactly `actions` on the table: for functions whose adapter
   * calls are few enough to list one by one. `Query@<index>` allows Query on that index alone, so
   * a function queries only the indexes its code paths use.
   */
  bindTableActions(fn: ServiceFunction, actions: readonly TableAction[]): void {
    fn.setEnvironment(ENV.tableName, this.table.tableName);
    const onTable = actions.filter((action) => !action.includes('@'));
    const indexes = actions.filter((action) => action.startsWith('Query@')).map((action) => action.slice('Query@'.length));
    if (onTable.length > 0)
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: onTable.map((action) => `dynamodb:${action}`), resources: [this.table.tableArn] }),
      );
    if (indexes.length > 0) {
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: indexes.map((index) => `${this.table.tableArn}/index/${index}`),
        }),
      );
    }
  }
}
