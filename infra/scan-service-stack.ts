import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { join } from 'node:path';
import { ENV } from '../shared/config/environment.ts';
import { MathExpression, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { Alarms } from './constructs/alarms.ts';
import { Api } from './constructs/api.ts';
import { Backfill } from './constructs/backfill.ts';
import { CredentialKey } from './constructs/credential-key.ts';
import { ServiceDashboard } from './constructs/dashboard.ts';
import { DEAD_LETTER_VISIBILITY_TIMEOUT, DEPLOYED_RUNNERS, Dispatch, classVisibilityTimeout } from './constructs/dispatch.ts';
import { deployedResourceClasses, type ResourceClass } from '../shared/domain/resource-class.ts';
import { Notifications } from './constructs/notifications.ts';
import { OperatorKeys } from './constructs/operator-keys.ts';
import { Scheduling } from './constructs/scheduling.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './constructs/service-function.ts';
import { ServiceMetrics } from './constructs/service-metrics.ts';
import { SessionKey } from './constructs/session-key.ts';
import { Storage, type TableAction } from './constructs/storage.ts';
import { Artifacts } from './constructs/artifacts.ts';
import { Ui } from './constructs/ui.ts';
import { dispatchConcurrency, type EnvironmentName, type EnvironmentSettings } from './environment-settings.ts';
import { repositoryRoot } from './paths.ts';
import { bearerOnlyRouteKeys } from '../functions/api/routes.ts';

export interface ScanServiceStackProps extends StackProps {
  environmentName: EnvironmentName;
  settings: EnvironmentSettings;
  /** Shown by GET /api/health. */
  serviceVersion: string;
  /**
   * Directory the engines' layer is built from; it must hold an executable `bin/<engine>` per engine.
   * Defaults to `layers/dist`, which `npm run build` writes.
   */
  enginesLayerPath?: string;
}

/**
 * Table actions of the functions whose code paths are few enough to list (Storage.bindTableActions).
 * Each list is what the DynamoDB adapters do on that function's paths, nothing more.
 */
const TABLE_ACTIONS = {
  // Schedule CRUD and toggle: the quota (the create gate's read and claim, GetItem and UpdateItem,
  // and the rows' count, Query), the scope's artifact reads (GetItem), the conditional row put, edit
  // and delete, and the listings (Query on the table, GSI1, GSI2).
  schedules: ['GetItem', 'Query', 'Query@GSI1', 'Query@GSI2', 'PutItem', 'UpdateItem', 'DeleteItem'],
  // Reconcile: every row (Scan; Query for one tenant), each schedule's newest job (Query on GSI2)
  // and the run fields it settles (UpdateItem).
  reconcile: ['Query', 'Query@GSI2', 'Scan', 'UpdateItem'],
  // Backfill: marker and schedule reads, the create gate, a scope's artifacts if it names any
  // (GetItem); the quota's count of rows (Query); the conditional marker claim and schedule put
  // (PutItem); the create gate's claim and the marker's done state (UpdateItem).
  backfill: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
  // get/list scans and findings (GetItem, Query on the table, GSI1, GSI2); issues: list (GSI1-3),
  // occurrences (GSI3), a scan's changed issues (BatchGetItem), triage (UpdateItem); run now and manual
  // scans: conditional job PutItem, schedule recordRun/finishRun and job transition (UpdateItem);
  // artifacts: the row put and reads, and the scope's artifact reads (PutItem, GetItem).
  scans: ['GetItem', 'BatchGetItem', 'Query', 'Query@GSI1', 'Query@GSI2', 'Query@GSI3', 'PutItem', 'UpdateItem'],
  // handleFire/handleScan and the scan engine: schedule and job reads, the job create (the fire's
  // claim: a conditional PutItem), transitions and run fields (UpdateItem), the issues of each
  // scanned target (Query on GSI2), finding and issue writes (BatchWriteItem), a scan output's
  // artifact row (PutItem) and the target's previous scans for its inventory (Query on GSI3). No Delete.
  dispatch: ['GetItem', 'Query@GSI2', 'Query@GSI3', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
  // The notifier: a tenant's rules for a fan-out (Query) and one rule for a delivery (GetItem);
  // digests: a digest rule's entries written at fan-out and deleted once sent (BatchWriteItem), and
  // the hourly flush's read of a period's partition (Query).
  notifier: ['GetItem', 'Query', 'BatchWriteItem'],
  // The artifact check: the row read and the conditional pending → ready/rejected update.
  artifactCheck: ['GetItem', 'UpdateItem'],
  // handleDeadLetter: the same reads, claim and writes, but it never touches findings.
  deadLetter: ['GetItem', 'PutItem', 'UpdateItem'],
} as const satisfies Record<string, readonly TableAction[]>;

/** The scan failure alarm: this share of finished scans failed in an hour... */
const SCAN_FAILURE_PERCENT = 50;
/** ...once at least this many finished, so one failed scan out of one is not a page. */
const SCAN_FAILURE_MINIMUM = 5;
/** 5xx answers in five minutes that page: 503s from a refusing dependency happen, a run of them is news. */
const API_5XX_THRESHOLD = 5;

/**
 * One environment of the scan service. Read top to bottom: where data lives, how schedules fire,
 * who consumes the scan queue and who is paged when it fails, the API functions and what each
 * may touch, the API in front of them, the nightly repair, the UI distribution in front of all.
 */
export class ScanServiceStack extends Stack {
  readonly storage: Storage;
  readonly scheduling: Scheduling;
  readonly sessionKey: SessionKey;
  readonly operatorKeys: OperatorKeys;
  /** The tenant vault's KMS key (DESIGN §16): the schedules function encrypts, dispatch decrypts. */
  readonly credentialKey: CredentialKey;
  readonly dispatch: Dispatch;
  readonly alarms: Alarms;
  readonly api: Api;
  readonly ui: Ui;
  /** The one-off backfill function, when cdk.json configures it (`backfill`). */
  readonly backfill?: Backfill;
  readonly artifacts: Artifacts;
  readonly dashboard: ServiceDashboard;
  readonly notifications: Notifications;
  /** `dispatch` is the standard class's dispatch function; `longDispatch` the long class's, where a manifest names that class. */
  readonly functions: Record<
    'schedules' | 'scans' | 'meta' | 'authorizer' | 'reconcile' | 'dispatch' | 'dispatchDeadLetter' | 'artifactCheck' | 'notifier',
    ServiceFunction
  > &
    Partial<Record<'longDispatch', ServiceFunction>>;

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

    // Triggers: schedule group → (execution role) → the scan queue of the schedule's resource class
    // (DESIGN §11: one queue and DLQ per class a manifest names), with a DLQ on each hop.
    const standardVisibility = Duration.seconds(settings.scanQueue.visibilityTimeoutSeconds);
    const classes = deployedResourceClasses();
    this.scheduling = new Scheduling(this, 'Scheduling', {
      classes: classes.map((name) => ({ name, visibilityTimeout: classVisibilityTimeout(name, standardVisibility) })),
      scheduleGroupName: settings.scheduleGroupName,
      removalPolicy,
      scanQueue: {
        visibilityTimeout: Duration.seconds(settings.scanQueue.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(settings.scanQueue.retentionDays),
        maxReceiveCount: settings.scanQueue.maxReceiveCount,
      },
      scanDeadLetterVisibilityTimeout: DEAD_LETTER_VISIBILITY_TIMEOUT,
      deadLetterRetentionPeriod: Duration.days(settings.deadLetterRetentionDays),
    });

    // The adversary engine puts its reconnaissance steps on the scan queue (DESIGN §5).
    if (settings.adversaryEngineRoleName !== null) this.scheduling.grantAdversaryEngine(settings.adversaryEngineRoleName);

    const identify = (fn: ServiceFunction): ServiceFunction =>
      fn.setEnvironment(ENV.environment, environmentName).setEnvironment(ENV.serviceVersion, props.serviceVersion);

    // The queue's consumers: dispatch runs one scan per message (the engines' layer), the
    // dead-letter function fails the job of a message that exhausted its receives. Built first,
    // so a missing engine build or a too-short visibility timeout fails before any bundling.
    this.dispatch = new Dispatch(this, 'Dispatch', {
      defaults,
      classQueues: this.scheduling.classQueues,
      scanQueueVisibilityTimeout: standardVisibility,
      enginesLayerPath: props.enginesLayerPath ?? join(repositoryRoot, 'layers/dist'),
      allowPrivateTargets: settings.allowPrivateTargets,
      maxConcurrency: Object.fromEntries(classes.map((name) => [name, dispatchConcurrency(settings, name)])) as Record<
        ResourceClass,
        number
      >,
    });
    // Every class's dispatch function runs the same code on its own queue: the same grants each.
    const dispatchers = [...this.dispatch.dispatchFunctions.values()].map(identify);
    const dispatch = this.dispatch.dispatchFunction;
    for (const fn of dispatchers) this.storage.bindTableActions(fn, TABLE_ACTIONS.dispatch);
    // The scanner's operator keys: read by dispatch only, passed to mailscan's environment only.
    this.operatorKeys = new OperatorKeys(this, 'OperatorKeys', { secretName: settings.operatorKeysSecretName, removalPolicy });
    for (const fn of dispatchers) this.operatorKeys.bindReader(fn);
    // The tenant vault's key: dispatch unwraps a scope's credential for its run (Decrypt only).
    this.credentialKey = new CredentialKey(this, 'CredentialKey', { removalPolicy });
    for (const fn of dispatchers) this.credentialKey.bindDecrypter(fn);
    const dispatchDeadLetter = identify(this.dispatch.deadLetterFunction);
    this.storage.bindTableActions(dispatchDeadLetter, TABLE_ACTIONS.deadLetter);

    // Dead letters page an operator: the scan DLQ's handler drains it within seconds, so for it
    // "received" is the signal a scan gave up and "waiting" means the handler is not draining.
    this.alarms = new Alarms(this, 'Alarms');
    for (const [name, { deadLetterQueue }] of this.scheduling.classQueues) {
      // Standard keeps the alarm names it always had; another class's are prefixed with it.
      const prefix = name === 'standard' ? '' : `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
      const which = name === 'standard' ? 'the scan DLQ' : `the ${name} class's scan DLQ`;
      this.alarms.whenMessagesReceived(
        `${prefix}ScanDeadLettersReceived`,
        deadLetterQueue,
        `A scan or fire message of ${which} exhausted its receives (its job is marked failed), or the dead-letter function keeps failing on one. Runbook: docs/operations.md, "${prefix}ScanDeadLettersReceived".`,
      );
      this.alarms.whenMessagesWait(
        `${prefix}ScanDeadLettersWaiting`,
        deadLetterQueue,
        `Messages wait in ${which}: the dead-letter function is not draining it. Runbook: docs/operations.md, "${prefix}ScanDeadLettersWaiting".`,
      );
    }
    this.alarms.whenMessagesWait(
      'SchedulerDeadLettersWaiting',
      this.scheduling.schedulerDeadLetterQueue,
      'EventBridge Scheduler could not deliver a fire to the scan queue: a scheduled scan did not run. Runbook: docs/operations.md, "SchedulerDeadLettersWaiting".',
    );

    // The session key rotates on a schedule; tokens name their key and both versions verify.
    this.sessionKey = new SessionKey(this, 'SessionKey', { removalPolicy, defaults, rotationDays: settings.sessionKeyRotationDays });
    identify(this.sessionKey.rotationFunction);

    // Uploaded reports and messages: the scans function presigns PUTs, dispatch reads, and the
    // check function settles each upload (ready or rejected) when its object is created.
    this.artifacts = new Artifacts(this, 'Artifacts', {
      defaults,
      environmentName,
      allowedOrigins: settings.allowedOrigins,
      removalPolicy,
    });
    const artifactCheck = identify(this.artifacts.checkFunction);
    this.storage.bindTableActions(artifactCheck, TABLE_ACTIONS.artifactCheck);
    for (const fn of dispatchers) this.artifacts.bindReader(fn);

    // Schedule CRUD and toggle: items in the table, triggers in the group. No Scan, no listing.
    const schedules = identify(
      new ServiceFunction(this, 'SchedulesFunction', {
        defaults,
        entry: 'functions/api/schedules.ts',
        description: 'Schedule routes of the HTTP API',
      }),
    );
    this.storage.bindTableActions(schedules, TABLE_ACTIONS.schedules);
    this.scheduling.bindTriggerManagement(schedules, { list: false });
    // It stores tenant credentials (DESIGN §16): wraps their data keys, never unwraps one.
    this.credentialKey.bindEncrypter(schedules);
    schedules
      .setEnvironment(ENV.scheduleQuota, String(settings.scheduleQuota))
      .setEnvironment(ENV.allowPrivateTargets, String(settings.allowPrivateTargets));

    // Run now, manual scans, scan and finding reads. It sends scan messages and never consumes
    // them; a job's `log` points at the dispatch function's log group, where its lines are.
    const scans = identify(
      new ServiceFunction(this, 'ScansFunction', {
        defaults,
        entry: 'functions/api/scans.ts',
        description: 'Scan and finding routes of the HTTP API (run now, manual scans, reads)',
        // Room for the SQS client's worst case (3 attempts of up to 3 s) and, after it, the write
        // that marks the job failed: a timeout in between would leave a queued job nobody runs.
        timeout: Duration.seconds(20),
      }),
    );
    this.storage.bindTableActions(scans, TABLE_ACTIONS.scans);
    this.scheduling.bindScanQueueSender(scans);
    this.artifacts.bindPresigner(scans);
    // The CSV export past one buffered answer: written under _exports/ and offered by a presigned GET.
    this.artifacts.bindExporter(scans);
    scans
      .setEnvironment(ENV.scheduleQuota, String(settings.scheduleQuota))
      .setEnvironment(ENV.allowPrivateTargets, String(settings.allowPrivateTargets));
    this.dispatch.bindLogReader(scans);

    // scan-types, health, openapi: static answers, so no permission beyond its own logs.
    // SCAN_RUNNERS: the scan types dispatch can run, shown as runner_available by scan-types.
    const meta = identify(
      new ServiceFunction(this, 'MetaFunction', {
        defaults,
        entry: 'functions/api/meta.ts',
        description: 'Scan types, health and OpenAPI routes of the HTTP API',
        buildFiles: { 'openapi.json': 'infra/bundling/write-openapi.ts', 'engine-views.json': 'infra/bundling/write-engine-views.ts' },
      }),
    )
      .setEnvironment(ENV.scanRunners, DEPLOYED_RUNNERS.join(','))
      .setEnvironment(ENV.allowPrivateTargets, String(settings.allowPrivateTargets));

    // Verifies the session JWT; the only reader of the session key.
    const authorizer = identify(
      new ServiceFunction(this, 'AuthorizerFunction', {
        defaults,
        entry: 'functions/authorizer.ts',
        description: 'HTTP API Lambda authorizer: session cookie or Bearer token to tenant, role, sub',
        timeout: Duration.seconds(5),
      }),
    ).setEnvironment(ENV.bearerOnlyRoutes, bearerOnlyRouteKeys().join(','));
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
    this.storage.bindTableActions(reconcile, TABLE_ACTIONS.reconcile);
    this.scheduling.bindTriggerManagement(reconcile, { list: true });

    new Rule(this, 'NightlyReconcile', {
      description: 'Nightly trigger drift repair',
      schedule: Schedule.expression(settings.reconcileCron),
      targets: [new LambdaFunction(reconcile.handler, { retryAttempts: 2 })],
    });

    // The one-off backfill of legacy schedules: writes through the schedule service like the
    // schedules function (same table items plus its markers, same trigger permissions), no listing.
    if (settings.backfill) {
      this.backfill = new Backfill(this, 'Backfill', { defaults, settings: settings.backfill });
      // The same target policy as the API: a legacy schedule of a private range migrates only where
      // the deployment allows private targets, else it is skipped with the reason.
      const backfill = identify(this.backfill.fn)
        .setEnvironment(ENV.scheduleQuota, String(settings.scheduleQuota))
        .setEnvironment(ENV.allowPrivateTargets, String(settings.allowPrivateTargets));
      this.storage.bindTableActions(backfill, TABLE_ACTIONS.backfill);
      this.scheduling.bindTriggerManagement(backfill, { list: false });
      new CfnOutput(this, 'BackfillFunctionName', { value: backfill.handler.functionName });
    }

    this.api = new Api(this, 'Api', {
      apiName: `scan-service-${environmentName}`,
      handlers: { schedules: schedules.handler, scans: scans.handler, meta: meta.handler },
      authorizerHandler: authorizer.handler,
      allowedOrigins: settings.allowedOrigins,
      throttle: { rateLimit: settings.api.throttleRateLimit, burstLimit: settings.api.throttleBurstLimit },
      logRetention: defaults.logRetention,
      removalPolicy,
    });

    // The UI and the API on one origin, so the session cookie is first-party (DESIGN §8).
    this.ui = new Ui(this, 'Ui', { httpApi: this.api.httpApi, uploadOrigins: [this.artifacts.uploadOrigin], removalPolicy });

    // Events and notifications (DESIGN §15): dispatch publishes each scan's events on the bus, its
    // rule puts them on the notification queue, and the notifier delivers them to tenants' rules.
    this.notifications = new Notifications(this, 'Notifications', {
      defaults,
      busName: `scan-service-${environmentName}`,
      removalPolicy,
      deadLetterRetentionPeriod: Duration.days(settings.deadLetterRetentionDays),
      sender: { address: settings.notifications.sender, identity: settings.notifications.senderIdentity },
      appUrl: this.ui.url,
    });
    for (const fn of dispatchers) this.notifications.bindPublisher(fn);
    // The schedules function serves the notification rules; its test endpoint sends one delivery.
    this.notifications.bindSender(schedules);
    const notifier = identify(this.notifications.notifierFunction);
    this.storage.bindTableActions(notifier, TABLE_ACTIONS.notifier);
    const longDispatch = this.dispatch.dispatchFunctions.get('long');
    this.functions = {
      schedules,
      scans,
      meta,
      authorizer,
      reconcile,
      dispatch,
      dispatchDeadLetter,
      artifactCheck,
      notifier,
      ...(longDispatch ? { longDispatch } : {}),
    };
    this.alarms.whenMessagesWait(
      'NotificationDeadLettersWaiting',
      this.notifications.deadLetterQueue,
      'A notification failed its last receive (a tenant\'s endpoint kept failing, SES refused the email) or EventBridge could not put an event on the notification queue. Runbook: docs/operations.md, "NotificationDeadLettersWaiting".',
    );

    new CfnOutput(this, 'UiUrl', { value: this.ui.url, description: 'The web UI; add it to allowedOrigins in cdk.json (docs/deploy.md)' });
    new CfnOutput(this, 'UiBucketName', { value: this.ui.bucket.bucketName, description: 'Upload web/dist here (docs/deploy.md)' });
    new CfnOutput(this, 'UiDistributionId', { value: this.ui.distribution.distributionId });

    // What the service measures (DESIGN §10) pages an operator when it goes wrong; each alarm's
    // runbook line is in docs/operations.md, and the dashboard shows them with the metrics.
    const metrics = new ServiceMetrics(environmentName);
    const fiveMinutes = Duration.minutes(5);
    this.alarms.whenAtLeast(
      'DispatchErrors',
      new MathExpression({
        expression: `FILL(failures, 0) + ${dispatchers.map((_, index) => `FILL(errors${index}, 0)`).join(' + ')}`,
        usingMetrics: {
          failures: metrics.metric('DispatchFailures', {}),
          // Every class's dispatch function: a long scan that crashes pages like a standard one.
          ...Object.fromEntries(
            dispatchers.map((fn, index) => [`errors${index}`, fn.handler.metricErrors({ period: fiveMinutes, statistic: Stats.SUM })]),
          ),
        },
        label: 'dispatch records failed + invocation errors',
        period: fiveMinutes,
      }),
      1,
      'Dispatch keeps failing: queue records it could not handle, or invocations that crashed or timed out, in 2 of the last 3 five-minute periods. Runbook: docs/operations.md, "DispatchErrors".',
      { evaluationPeriods: 3, datapointsToAlarm: 2 },
    );
    this.alarms.whenAtLeast(
      'ScanFailureRatio',
      metrics.scanFailureRatio(Duration.hours(1), SCAN_FAILURE_MINIMUM),
      SCAN_FAILURE_PERCENT,
      `At least ${SCAN_FAILURE_PERCENT}% of the scans that finished in the last hour failed (counted from ${SCAN_FAILURE_MINIMUM} finished scans). Runbook: docs/operations.md, "ScanFailureRatio".`,
    );
    this.alarms.whenAtLeast(
      'Api5xx',
      this.api.httpApi.metricServerError({ period: fiveMinutes, statistic: Stats.SUM }),
      API_5XX_THRESHOLD,
      `The API answered at least ${API_5XX_THRESHOLD} 5xx in five minutes. Runbook: docs/operations.md, "Api5xx".`,
    );
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      environmentName,
      scanQueue: this.scheduling.scanQueue,
      scanDeadLetterQueue: this.scheduling.scanDeadLetterQueue,
      schedulerDeadLetterQueue: this.scheduling.schedulerDeadLetterQueue,
      dispatchFunction: dispatch.handler,
      notificationQueue: this.notifications.queue,
      notificationDeadLetterQueue: this.notifications.deadLetterQueue,
      notifierFunction: notifier.handler,
      httpApi: this.api.httpApi,
      alarms: this.alarms.all,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL; routes start with /api' });
    new CfnOutput(this, 'ArtifactBucketName', { value: this.artifacts.bucket.bucketName });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'ScheduleGroupName', { value: this.scheduling.group.scheduleGroupName });
    new CfnOutput(this, 'ScanQueueUrl', { value: this.scheduling.scanQueue.queueUrl });
    new CfnOutput(this, 'ScanDeadLetterQueueUrl', { value: this.scheduling.scanDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'SchedulerDeadLetterQueueUrl', { value: this.scheduling.schedulerDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'SessionKeySecretArn', { value: this.sessionKey.secret.secretArn });
    new CfnOutput(this, 'OperatorKeysSecretName', {
      value: settings.operatorKeysSecretName,
      description: 'Put the scanner operator keys here as a JSON object (docs/operations.md)',
    });
    new CfnOutput(this, 'ReconcileFunctionName', { value: reconcile.handler.functionName });
    new CfnOutput(this, 'ScansFunctionName', { value: scans.handler.functionName });
    new CfnOutput(this, 'DispatchFunctionName', { value: dispatch.handler.functionName });
    new CfnOutput(this, 'DispatchLogGroupName', { value: dispatch.logGroup.logGroupName });
    for (const [name, fn] of this.dispatch.dispatchFunctions) {
      if (name === 'standard') continue;
      const prefix = `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
      const queues = this.scheduling.classQueues.get(name)!;
      new CfnOutput(this, `${prefix}ScanQueueUrl`, { value: queues.queue.queueUrl });
      new CfnOutput(this, `${prefix}ScanDeadLetterQueueUrl`, { value: queues.deadLetterQueue.queueUrl });
      new CfnOutput(this, `${prefix}DispatchFunctionName`, { value: fn.handler.functionName });
      new CfnOutput(this, `${prefix}DispatchLogGroupName`, { value: fn.logGroup.logGroupName });
    }
    new CfnOutput(this, 'DispatchDeadLetterFunctionName', { value: dispatchDeadLetter.handler.functionName });
    new CfnOutput(this, 'EventBusName', { value: this.notifications.bus.eventBusName });
    new CfnOutput(this, 'NotificationQueueUrl', { value: this.notifications.queue.queueUrl });
    new CfnOutput(this, 'NotificationDeadLetterQueueUrl', { value: this.notifications.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'NotifierFunctionName', { value: notifier.handler.functionName });
    new CfnOutput(this, 'DashboardName', { value: `scan-service-${environmentName}` });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Subscribe to receive the DLQ alarms' });
  }
}
