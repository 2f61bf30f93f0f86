import { Validations, type PolicyValidationPluginReport, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentName } from '../../infra/environment-settings.ts';
import { environments, synthesizedStack } from './synthesized-stack.ts';

interface Acknowledgment {
  /** Construct path below the stack, e.g. `Alarms/Topic`. */
  path: string;
  id: string;
  reason: string;
}

/** One cdk-nag run per environment, on the synth all of test/infra shares. */
const checked = {} as Record<EnvironmentName, { stack: Stack; report: PolicyValidationPluginReport; acknowledgments: Acknowledgment[] }>;

function acknowledgmentsIn(stack: Stack): Acknowledgment[] {
  const found: Acknowledgment[] = [];
  const visit = (construct: IConstruct) => {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({ path: construct.node.path.slice(stack.node.path.length + 1), id: id.replace(/^Annotation::/, ''), reason });
      }
    }
    construct.node.children.forEach(visit);
  };
  visit(stack);
  // CDK acknowledges some rules of other validators by itself (e.g. CloudFormation-Validate on a log bucket).
  return found.filter((acknowledgment) => acknowledgment.id.startsWith('AwsSolutions-'));
}

beforeAll(() => {
  for (const env of environments) {
    // The synth every file of test/infra shares: lazily added policies and permissions exist by now.
    const { stack } = synthesizedStack(env);
    const report = new AwsSolutionsChecks(stack.node.root).validateScope(stack);
    checked[env] = { stack, report, acknowledgments: acknowledgmentsIn(stack) };
  }
});

describe.each(environments)('cdk-nag AwsSolutions on ScanService-%s', (env) => {
  it('reports no unacknowledged error or warning', () => {
    const { report } = checked[env];
    const findings = report.violations.map(
      (violation) =>
        `${violation.ruleName} (${violation.severity}) at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
    );

    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('keeps every acknowledgment next to its resource, with a reason a reviewer can check', () => {
    const { acknowledgments } = checked[env];

    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const acknowledgment of acknowledgments) {
      // Never on the stack or the app: a stack-wide acknowledgment would hide new resources too.
      expect(acknowledgment.path, acknowledgment.id).not.toBe('');
      expect(acknowledgment.id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(acknowledgment.reason.length, `${acknowledgment.path} ${acknowledgment.id}`).toBeGreaterThanOrEqual(80);
    }
  });

  it('acknowledges exactly the findings the review accepted, and no others', () => {
    const group = `scan-service-${env}`;
    const inventory = checked[env].acknowledgments.map(({ path, id }) => `${path} ${id}`).sort();

    expect(inventory).toEqual(
      [
        'Api/HttpApi/DELETE--api--session AwsSolutions-APIG4',
        'Artifacts/Bucket AwsSolutions-S1',
        `Artifacts/CheckFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${group}-artifacts-<AWS::AccountId>-<AWS::Region>/*]`,
        `Dispatch/DispatchFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${group}-artifacts-<AWS::AccountId>-<AWS::Region>/*]`,
        // The long class's dispatch function reads and writes artifacts as the standard one does (docs/resource-classes.md).
        `Dispatch/LongDispatchFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${group}-artifacts-<AWS::AccountId>-<AWS::Region>/*]`,
        `ScansFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${group}-artifacts-<AWS::AccountId>-<AWS::Region>/*]`,
        `ScansFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${group}-artifacts-<AWS::AccountId>-<AWS::Region>/_exports/*]`,
        'Api/HttpApi/GET--api--health AwsSolutions-APIG4',
        'Api/HttpApi/GET--api--openapi.json AwsSolutions-APIG4',
        'Api/HttpApi/POST--api--session--code AwsSolutions-APIG4',
        'Api/NotFoundRoute AwsSolutions-APIG4',
        'OperatorKeys/Secret AwsSolutions-SMG4',
        `ReconcileFunction/Role AwsSolutions-IAM5[Resource::*]`,
        `ReconcileFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${group}/*]`,
        `SchedulesFunction/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${group}/*]`,
        'Scheduling/SchedulerDeadLetterQueue AwsSolutions-SQS3',
        'Ui/AccessLogs AwsSolutions-S1',
        'Ui/Distribution AwsSolutions-CFR1',
        'Ui/Distribution AwsSolutions-CFR2',
        'Ui/Distribution AwsSolutions-CFR4',
      ].sort(),
    );
  });
});
