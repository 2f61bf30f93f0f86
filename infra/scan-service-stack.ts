import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { ENV } from '../shared/config/environment.ts';
import { Api } from './constructs/api.ts';
import { Scheduling } from './constructs/scheduling.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './constructs/service-function.ts';
import { SessionKey } from './constructs/session-key.ts';
import { Storage } from './constructs/storage.ts';
import type { EnvironmentName, EnvironmentSettings } from './environment-settings.ts';

export interface ScanServiceStackProps extends StackProps {
  environmentName: EnvironmentName;
  settings: EnvironmentSettings;
  /** Shown by GET /api/health. */
  serviceVersion: string;
}

/**
 * One environment of the scan service. Read top to bottom: where data lives, how schedules fire,
 * the functions and what each may touch, the API in front of them, the nightly repair.
 */
export class ScanServiceStack extends Stack {
  readonly storage: Storage;
  readonly scheduling: Scheduling;
  readonly sessionKey: SessionKey;
  readonly api: Api;
  readonly functions: Record<'schedules' | 'meta' | 'authorizer' | 'reconcile', ServiceFunction>;

  constructor(scope: Construct, id: string, props: ScanServiceStackProps) {
    super(scope, id, props);
    const { settings, environmentName } = props;
    const removalPolicy = settings.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const defaults: ServiceFunctionDefaults = {
      serviceName: 'scan-service',
      logLevel: settings.logLevel,
      // environment-settings.ts only accepts values of the RetentionDays enum.
      logRetention: settings.logRetentionDays,
      removalPolicy,
    };

    // Data: the single table (PITR on; retained and deletion-protected in prod).
    this.storage = new Storage(this, 'Storage', { removalPolicy });

    // Triggers: schedule group → (execution role) → scan queue, with a DLQ on each hop.
    this.scheduling = new Scheduling(this, 'Scheduling', {
      scheduleGroupName: settings.scheduleGroupName,
      removalPolicy,
      scanQueue: {
        visibilityTimeout: Duration.seconds(settings.scanQueue.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(settings.scanQueue.retentionDays),
        maxReceiveCount: settings.scanQueue.maxReceiveCount,
      },
      deadLetterRetentionPeriod: Duration.days(settings.deadLetterRetentionDays),
    });

    this.sessionKey = new SessionKey(this, 'SessionKey', { removalPolicy });

    const identify = (fn: ServiceFunction): ServiceFunction =>
      fn.setEnvironment(ENV.environment, environmentName).setEnvironment(ENV.serviceVersion, props.serviceVersion);

    // Schedule CRUD and toggle: items in the table, triggers in the group. No Scan, no listing.
    const schedules = identify(
      new ServiceFunction(this, 'SchedulesFunction', {
        defaults,
        entry: 'functions/api/schedules.ts',
        description: 'Schedule routes of the HTTP API',
      }),
    );
    this.storage.bindTable(schedules, { scan: false });
    this.scheduling.bindTriggerManagement(schedules, { list: false });
    this.scheduling.exposeScanQueueUrl(schedules);
    schedules
      .setEnvironment(ENV.allowedOrigins, settings.allowedOrigins.join(','))
      .setEnvironment(ENV.scheduleQuota, String(settings.scheduleQuota));

    // scan-types, health, openapi: static answers, so no permission beyond its own logs.
    const meta = identify(
      new ServiceFunction(this, 'MetaFunction', {
        defaults,
        entry: 'functions/api/meta.ts',
        description: 'Scan types, health and OpenAPI routes of the HTTP API',
      }),
    ).setEnvironment(ENV.allowedOrigins, settings.allowedOrigins.join(','));

    // Verifies the session JWT; the only reader of the session key.
    const authorizer = identify(
      new ServiceFunction(this, 'AuthorizerFunction', {
        defaults,
        entry: 'functions/authorizer.ts',
        description: 'HTTP API Lambda authorizer: session cookie or Bearer token to tenant, role, sub',
        timeout: Duration.seconds(5),
      }),
    );
    this.sessionKey.bindSessionKey(authorizer);

    // Repairs drift between rows and triggers in both directions: reads every row (Scan) and
    // lists the group, so it is the one function with those two permissions.
    const reconcile = identify(
      new ServiceFunction(this, 'ReconcileFunction', {
        defaults,
        entry: 'functions/reconcile.ts',
        description: 'Repairs drift between schedule rows and their EventBridge triggers',
        timeout: Duration.minutes(15),
        memorySize: 1024,
      }),
    );
    this.storage.bindTable(reconcile, { scan: true });
    this.scheduling.bindTriggerManagement(reconcile, { list: true });

    new Rule(this, 'NightlyReconcile', {
      description: 'Nightly trigger drift repair',
      schedule: Schedule.expression(settings.reconcileCron),
      targets: [new LambdaFunction(reconcile.handler, { retryAttempts: 2 })],
    });

    this.functions = { schedules, meta, authorizer, reconcile };

    this.api = new Api(this, 'Api', {
      apiName: `scan-service-${environmentName}`,
      handlers: { schedules: schedules.handler, meta: meta.handler },
      authorizerHandler: authorizer.handler,
      allowedOrigins: settings.allowedOrigins,
      throttle: { rateLimit: settings.api.throttleRateLimit, burstLimit: settings.api.throttleBurstLimit },
      logRetention: defaults.logRetention,
      removalPolicy,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL; routes start with /api' });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'ScheduleGroupName', { value: this.scheduling.group.scheduleGroupName });
    new CfnOutput(this, 'ScanQueueUrl', { value: this.scheduling.scanQueue.queueUrl });
    new CfnOutput(this, 'ScanDeadLetterQueueUrl', { value: this.scheduling.scanDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'SchedulerDeadLetterQueueUrl', { value: this.scheduling.schedulerDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'SessionKeySecretArn', { value: this.sessionKey.secret.secretArn });
    new CfnOutput(this, 'ReconcileFunctionName', { value: reconcile.handler.functionName });
  }
}
