import { Aws, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { EventBus, EventField, Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import { EVENT_SOURCE, EVENT_TYPES } from '../../shared/domain/notification.ts';
import { VISIBILITY_TIMEOUT_FACTOR } from './dispatch.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';

/**
 * One record per invocation, so each gets the whole timeout: a delivery is at most 3 attempts of
 * 10 s with backoff of up to 1 s and 2 s between them (shared/services/notification-delivery.ts),
 * and a fan-out is a Query and one SendMessage per matching rule (at most 50).
 */
export const NOTIFIER_TIMEOUT = Duration.seconds(45);
/** A notification message that failed this many receives moves to the notification DLQ (docs/notifications.md). */
export const NOTIFICATION_MAX_RECEIVES = 5;
/** Concurrent notifier invocations: a first scan of a large target publishes one event per issue, and tenants' endpoints should not see a flood. */
export const NOTIFIER_MAX_CONCURRENCY = 10;
/** Events and deliveries wait at most this long; each is retried within minutes, so four days only covers an outage. */
const QUEUE_RETENTION = Duration.days(4);
/**
 * When digests are flushed: five minutes past every hour (UTC), so an event of the hour that was
 * still being fanned out at its end is in its digest (DIGEST_GRACE_MS); a daily digest ends at
 * midnight and goes out at 00:05 with that hour's.
 */
export const DIGEST_FLUSH_MINUTE = '5';

export interface NotificationsProps {
  defaults: ServiceFunctionDefaults;
  /** The custom bus's name, unique in the account and region. */
  busName: string;
  removalPolicy: RemovalPolicy;
  deadLetterRetentionPeriod: Duration;
  /** The address emails come from, and the verified SES identity (the address or its domain) that authorises it. */
  sender: { address: string; identity: string };
  /** The UI's origin, for the links in notifications. */
  appUrl: string;
}

/**
 * Events to tenants' notification rules in AWS (DESIGN §15, docs/notifications.md): the custom
 * bus scans publish to, a rule that hands each event's `detail` to the notification queue as
 * `{kind: event}`, the queue with its DLQ, and the notifier that consumes it: it fans an event out
 * to one `{kind: delivery}` message per matching rule on the same queue, and sends each delivery.
 * The table grant is the stack's (TABLE_ACTIONS.notifier).
 */
export class Notifications extends Construct {
  readonly bus: EventBus;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly rule: Rule;
  readonly notifierFunction: ServiceFunction;
  /** The hourly schedule that has the notifier send the digests of the periods just ended. */
  readonly digestFlush: Rule;
  /** `arn:…:ses:<region>:<account>:identity/<identity>`: what ses:SendEmail is allowed on. */
  readonly senderIdentityArn: string;
  private readonly sender: NotificationsProps['sender'];
  private readonly appUrl: string;

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    this.sender = props.sender;
    this.appUrl = props.appUrl;
    this.senderIdentityArn = `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/${props.sender.identity}`;

    this.bus = new EventBus(this, 'Bus', { eventBusName: props.busName, description: 'Scan service events: scan.finished and issue.*' });

    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, removalPolicy: props.removalPolicy };
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { ...queueDefaults, retentionPeriod: props.deadLetterRetentionPeriod });
    this.queue = new Queue(this, 'Queue', {
      ...queueDefaults,
      visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * NOTIFIER_TIMEOUT.toSeconds()),
      retentionPeriod: QUEUE_RETENTION,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: NOTIFICATION_MAX_RECEIVES },
    });

    // The queue carries what the notifier reads: the event itself (the entry's detail) as
    // {kind: event}. An event EventBridge cannot put on the queue after its retries goes to the
    // same DLQ, so a lost event pages like a failed delivery.
    this.rule = new Rule(this, 'ToQueue', {
      eventBus: this.bus,
      description: 'Every scan service event to the notification queue',
      eventPattern: { source: [EVENT_SOURCE], detailType: [...EVENT_TYPES] },
      targets: [
        new SqsQueue(this.queue, {
          message: RuleTargetInput.fromObject({ kind: 'event', event: EventField.fromPath('$.detail') }),
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });

    this.notifierFunction = new ServiceFunction(this, 'NotifierFunction', {
      defaults: props.defaults,
      entry: 'functions/notifier.ts',
      description: "Notification queue consumer: fans events out to the tenant's rules and delivers them",
      timeout: NOTIFIER_TIMEOUT,
    });
    this.notifierFunction.handler.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: NOTIFIER_MAX_CONCURRENCY }),
    );
    // Digests (docs/digests-and-sla.md): every hour the notifier is invoked with the schedule's
    // fire time and sends the digests of the periods that ended before it. An invocation that
    // throws is retried twice by EventBridge; what still failed goes out with a later hour's (each
    // flush looks back a day).
    this.digestFlush = new Rule(this, 'DigestFlush', {
      description: 'Hourly: the notifier sends the notification digests of the periods just ended',
      schedule: Schedule.cron({ minute: DIGEST_FLUSH_MINUTE }),
      targets: [
        new LambdaFunction(this.notifierFunction.handler, {
          event: RuleTargetInput.fromObject({ kind: 'flush_digests', time: EventField.time }),
          retryAttempts: 2,
        }),
      ],
    });
    // Fan-out puts deliveries back on the queue.
    this.notifierFunction.sendsTo(this.queue, ENV.notificationQueueUrl);
    this.bindSender(this.notifierFunction);
  }

  /** Let `fn` publish the service's events: the bus's name and events:PutEvents on this bus only. */
  bindPublisher(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.eventBusName, this.bus.eventBusName);
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }));
  }

  /**
   * Let `fn` send notifications (the notifier; the API function's test delivery): the sender and
   * the UI origin, and ses:SendEmail as the configured identity only. Webhooks and Slack need no
   * grant: a function outside a VPC reaches the internet, and the connect-time guard keeps it out
   * of the deployment.
   */
  bindSender(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.notificationSender, this.sender.address).setEnvironment(ENV.appUrl, this.appUrl);
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ses:SendEmail'], resources: [this.senderIdentityArn] }));
  }
}
