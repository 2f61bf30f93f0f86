import { Aws, Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import type { ServiceFunction } from './service-function.ts';

export interface SchedulingProps {
  scheduleGroupName: string;
  removalPolicy: RemovalPolicy;
  scanQueue: { visibilityTimeout: Duration; retentionPeriod: Duration; maxReceiveCount: number };
  /** The scan DLQ has a consumer (the dead-letter function): 6x its timeout, like the scan queue. */
  scanDeadLetterVisibilityTimeout: Duration;
  deadLetterRetentionPeriod: Duration;
}

/** Actions on individual schedules that the API needs to keep a row's triggers in sync. */
const TRIGGER_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'];

/**
 * Everything between "a schedule row is enabled" and "a fire message is on the scan queue":
 * the environment's EventBridge Scheduler group, the scan queue (with its DLQ), the DLQ for fires
 * the scheduler could not deliver, and the execution role the scheduler assumes to deliver them.
 *
 * The dispatch construct consumes `scanQueue` and `scanDeadLetterQueue`.
 */
export class Scheduling extends Construct {
  readonly group: ScheduleGroup;
  readonly scanQueue: Queue;
  readonly scanDeadLetterQueue: Queue;
  readonly schedulerDeadLetterQueue: Queue;
  readonly executionRole: iam.Role;
  /** `arn:…:schedule/<group>/*`: every schedule (trigger) in the group. */
  readonly schedulesInGroupArn: string;
  private readonly scheduleGroupName: string;

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    this.scheduleGroupName = props.scheduleGroupName;

    this.group = new ScheduleGroup(this, 'Group', {
      scheduleGroupName: props.scheduleGroupName,
      removalPolicy: props.removalPolicy,
    });
    const schedulerArn = `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}`;
    this.schedulesInGroupArn = `${schedulerArn}:schedule/${props.scheduleGroupName}/*`;
    const groupArn = `${schedulerArn}:schedule-group/${props.scheduleGroupName}`;

    const queueDefaults = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    };
    this.scanDeadLetterQueue = new Queue(this, 'ScanDeadLetterQueue', {
      ...queueDefaults,
      visibilityTimeout: props.scanDeadLetterVisibilityTimeout,
      retentionPeriod: props.deadLetterRetentionPeriod,
    });
    this.scanQueue = new Queue(this, 'ScanQueue', {
      ...queueDefaults,
      visibilityTimeout: props.scanQueue.visibilityTimeout,
      retentionPeriod: props.scanQueue.retentionPeriod,
      deadLetterQueue: { queue: this.scanDeadLetterQueue, maxReceiveCount: props.scanQueue.maxReceiveCount },
    });
    // Fires EventBridge Scheduler could not deliver after its retries (queue missing, throttled,
    // role broken). A standard queue: the scheduler does not support FIFO dead-letter queues.
    this.schedulerDeadLetterQueue = new Queue(this, 'SchedulerDeadLetterQueue', {
      ...queueDefaults,
      retentionPeriod: props.deadLetterRetentionPeriod,
    });
    Validations.of(this.schedulerDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is a dead-letter queue: every trigger names it in its DeadLetterConfig when the ' +
        'API creates it (EventBridge Scheduler, not an SQS redrive policy, so cdk-nag cannot see it). ' +
        'A dead-letter queue of a dead-letter queue would only hide lost fires; the ' +
        'SchedulerDeadLettersWaiting alarm pages on any message here.',
    });

    // Only EventBridge Scheduler, acting for a schedule of this group in this account, may assume
    // the role (confused-deputy protection). The AWS guide asks for the schedule-group ARN as
    // aws:SourceArn; the group's schedule ARNs are accepted too, so the trust holds whichever of
    // the two the service presents. Both stay inside this one group.
    this.executionRole = new iam.Role(this, 'ExecutionRole', {
      description: `EventBridge Scheduler delivers fires of group ${props.scheduleGroupName} to the scan queue`,
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: { 'aws:SourceArn': [groupArn, this.schedulesInGroupArn] },
      }),
    });
    // The target send, and the dead-letter send: the scheduler delivers dead-letter events with
    // the schedule's execution role too, so without the second ARN undeliverable fires are lost.
    this.executionRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [this.scanQueue.queueArn, this.schedulerDeadLetterQueue.queueArn],
      }),
    );
  }

  /**
   * Give `fn` what the EventBridge trigger adapter needs to provision and tear down triggers:
   * the names it puts into CreateSchedule (group, target queue, role, DLQ) and the permissions
   * to manage schedules of this group only and to hand the execution role to the scheduler only.
   * `list` adds scheduler:ListSchedules for reconcile.
   */
  bindTriggerManagement(fn: ServiceFunction, options: { list: boolean }): void {
    fn.setEnvironment(ENV.scheduleGroupName, this.group.scheduleGroupName)
      .setEnvironment(ENV.scanQueueArn, this.scanQueue.queueArn)
      .setEnvironment(ENV.schedulerRoleArn, this.executionRole.roleArn)
      .setEnvironment(ENV.schedulerDlqArn, this.schedulerDeadLetterQueue.queueArn);

    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: TRIGGER_ACTIONS, resources: [this.schedulesInGroupArn] }));
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${this.scheduleGroupName}/*]`,
      reason:
        'Triggers are created at run time, one per enabled schedule row, named after the row id; ' +
        "their ARNs cannot be listed in advance. The wildcard is confined to this environment's " +
        'schedule group, and the actions to create, update, delete and get a schedule.',
    });
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.executionRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    if (options.list) {
      // ListSchedules has no resource type in the Service Authorization Reference: IAM only
      // accepts "*". The adapter passes GroupName, so the listing itself stays in this group.
      fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['scheduler:ListSchedules'], resources: ['*'] }));
      Validations.of(fn.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'scheduler:ListSchedules supports no resource type (Service Authorization Reference), so IAM ' +
          'only accepts "*". It is the only action on "*" in this policy, it reads names and states ' +
          "only, and the adapter always passes this environment's GroupName.",
      });
    }
  }

  /**
   * Let the adversary engine (another system, its role named in cdk.json) put adversary steps on
   * the scan queue: sqs:SendMessage on that queue only, in a policy attached to its role.
   */
  grantAdversaryEngine(roleName: string): iam.IRole {
    const role = iam.Role.fromRoleName(this, 'AdversaryEngineRole', roleName);
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.scanQueue.queueArn] }));
    return role;
  }

  /** Let `fn` put scan messages on the scan queue (run now, manual scans): ServiceFunction.sendsTo. */
  bindScanQueueSender(fn: ServiceFunction): void {
    fn.sendsTo(this.scanQueue, ENV.scanQueueUrl);
  }
}
