import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import type { EnvironmentSettings } from '../environment-settings.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';

export interface BackfillProps {
  defaults: ServiceFunctionDefaults;
  settings: NonNullable<EnvironmentSettings['backfill']>;
}

/**
 * backfill_scan_schedules in AWS (DESIGN §9): a function invoked by hand, once, with
 * `{"dry_run": bool, "tenant": "..."}`. It has no schedule, event source or permission for anyone
 * to invoke it beyond the account's own IAM. It runs in the legacy database's VPC (subnets and
 * security group from cdk.json) and reads the database URL from the named secret.
 */
export class Backfill extends Construct {
  readonly fn: ServiceFunction;

  constructor(scope: Construct, id: string, props: BackfillProps) {
    super(scope, id);
    const { settings } = props;
    this.fn = new ServiceFunction(this, 'Function', {
      defaults: props.defaults,
      entry: 'functions/backfill.ts',
      description: 'One-off backfill of legacy Secret Scan and Continuous Network schedules (docs/backfill.md)',
      timeout: Duration.minutes(15),
      memorySize: 1024,
    });
    this.fn.setEnvironment(ENV.legacyDatabaseSecretName, settings.legacyDatabaseSecretName);

    // Only GetSecretValue, on that one secret (any version suffix Secrets Manager appended).
    const { partition, region, account } = Stack.of(this);
    this.fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [`arn:${partition}:secretsmanager:${region}:${account}:secret:${settings.legacyDatabaseSecretName}-??????`],
      }),
    );

    // VPC attachment through the escape hatch rather than `vpc`, which would attach the managed
    // AWSLambdaVPCAccessExecutionRole: the same ENI actions, stated here. They have no resource-level
    // scoping that covers DescribeNetworkInterfaces, hence "*" (as in the managed policy).
    const cfn = this.fn.handler.node.defaultChild as CfnFunction;
    cfn.vpcConfig = { subnetIds: settings.subnetIds, securityGroupIds: [settings.securityGroupId] };
    this.fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        resources: ['*'],
      }),
    );
  }
}
