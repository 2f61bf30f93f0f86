import { Aws, Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, classVariable } from '../../shared/config/environment.ts';
import type { ResourceClass } from '../../shared/domain/resource-class.ts';
import type { ServiceFunction } from './service-function.ts';

/** One resource class's scan queue and its DLQ (DESIGN §11): its dispatch function consumes the queue. */
export interface ClassQueues {
  queue: Queue;
  deadLetterQueue: Queue;
}

export interface SchedulingProps {
  scheduleGroupName: string;
  removalPolicy: RemovalPolicy;
  scanQueue: { visibilityTimeout: Duration; retentionPeriod: Duration; maxReceiveCount: number };
  /**
   * The resource classes to build a queue for, standard first, each with its queue's visibility
   * timeout (standard: `scanQueue.visibilityTimeout`); the other settings are `scanQueue`'s.
   */
  classes: readonly { name: ResourceClass; visibilityTimeout: Duration }[];
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
 * The dispatch construct consumes each class's queue (`classQueues`) and DLQ.
 */
export class Scheduling extends Construct {
  readonly group: ScheduleGroup;
  /** The standard class's scan queue and DLQ (the names the stack always had). */
  readonly scanQueue: Queue;
  readonly scanDeadLetterQueue: Queue;
  /** Every deployed class's scan queue and DLQ, standard included. */
  readonly classQueues: ReadonlyMap<ResourceClass, ClassQueues>;
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
    // One queue and DLQ per resource class: standard keeps the ids it always had, another class's
    // are prefixed with its name (LongScanQueue), so adding a class replaces nothing deployed.
    const classQueues = new Map<ResourceClass, ClassQueues>();
    for (const { name, visibilityTimeout } of props.classes) {
      const prefix = name === 'standard' ? '' : name.charAt(0).toUpperCase() + name.slice(1);
      const deadLetterQueue = new Queue(this, `${prefix}ScanDeadLetterQueue`, {
        ...queueDefaults,
        visibilityTimeout: props.scanDeadLetterVisibilityTimeout,
        retentionPeriod: props.deadLetterRetentionPeriod,
      });
      const queue = new Queue(this, `${prefix}ScanQueue`, {
        ...queueDefaults,
        visibilityTimeout,
        retentionPeriod: props.scanQueue.retentionPeriod,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.scanQueue.maxReceiveCount },
      });
      classQueues.set(name, { queue, deadLetterQueue });
    }
    const standard = classQueues.get('standard');
    if (standard === undefined) throw new Error('the standard resource class always has a queue');
    this.classQueues = classQueues;
    this.scanQueue = standard.queue;
    this.scanDeadLetterQueue = standard.deadLetterQueue;
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
    // The target sends (each class's scan queue: a trigger targets its type's class), and the
    // dead-letter send: the scheduler delivers dead-letter events with the schedule's execution
    // role too, so without that ARN undeliverable fires are lost. Never a class's DLQ.
    this.executionRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [...[...classQueues.values()].map(({ queue }) => queue.queueArn), this.schedulerDeadLetterQueue.queueArn],
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
    fn.setEnvironment(ENV.scheduleGroupName, this.group.scheduleGroupName);
    for (const [name, { queue }] of this.classQueues) fn.setEnvironment(classVariable(ENV.scanQueueArn, name), queue.queueArn);
    fn.setEnvironment(ENV.schedulerRoleArn, this.executionRole.roleArn).setEnvironment(
      ENV.schedulerDlqArn,
      this.schedulerDeadLetterQueue.queueArn,
    );

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

  /**
   * Let `fn` put scan messages on every class's scan queue (run now, manual scans land on their
   * type's class queue): ServiceFunction.sendsTo, one URL variable per class.
   */
  bindScanQueueSender(fn: ServiceFunction): void {
    for (const [name, { queue }] of this.classQueues) fn.sendsTo(queue, classVariable(ENV.scanQueueUrl, name));
  }
}
