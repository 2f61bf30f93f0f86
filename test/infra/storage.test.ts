import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createTableInput } from '../../shared/adapters/dynamodb/table-definition.ts';
import { environments, synthesizedStack, type Json } from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const { template } = synthesizedStack(env);

  describe('storage', () => {
    it('builds the table from the shared table definition', () => {
      const expected = createTableInput('unused');
      const tables = template.findResources('AWS::DynamoDB::Table');
      expect(Object.keys(tables)).toHaveLength(1);
      const table = Object.values<Json>(tables)[0].Properties;
      expect(table.KeySchema).toEqual(expected.KeySchema);
      expect(table.GlobalSecondaryIndexes).toEqual(expected.GlobalSecondaryIndexes);
      expect(table.BillingMode).toBe(expected.BillingMode);
      expect(new Set(table.AttributeDefinitions)).toEqual(new Set(expected.AttributeDefinitions));
      expect(table.AttributeDefinitions).toHaveLength(expected.AttributeDefinitions.length);
      expect(table.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    });

    it('turns point-in-time recovery on', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
    });

    it(env === 'prod' ? 'retains and protects the table' : 'deletes the table with the stack', () => {
      const retain = env === 'prod';
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: retain ? 'Retain' : 'Delete',
        UpdateReplacePolicy: retain ? 'Retain' : 'Delete',
        Properties: Match.objectLike({ DeletionProtectionEnabled: retain }),
      });
    });
  });
});
