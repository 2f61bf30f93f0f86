import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { LocalQueue } from '../shared/adapters/local/local-queue.ts';
import { LocalTriggerScheduler } from '../shared/adapters/local/local-trigger-scheduler.ts';
import { routes } from '../functions/api/routes.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import type { Clock } from '../shared/ports/clock.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import type { IdGenerator } from '../shared/ports/id-generator.ts';
import type { Logger } from '../shared/ports/logger.ts';
import type { Metrics } from '../shared/ports/metrics.ts';
import { makeLogMetrics } from '../shared/adapters/metrics/log-metrics.ts';
import type { ScheduleRepository } from '../shared/ports/schedule-repository.ts';
import type { TriggerScheduler } from '../shared/ports/trigger-scheduler.ts';
import { RESOURCE_CLASSES, resourceClassOf, targetedTrigger, type ResourceClass } from '../shared/domain/resource-class.ts';
import { composeScanServices } from '../shared/services/compose-scan-services.ts';
import { makeIssueService } from '../shared/services/issue-service.ts';
import { makeMetaHandler } from '../functions/api/meta-handler.ts';
import { engineViews } from '../shared/domain/engine-views.ts';
import { buildOpenApiDocument } from '../shared/http/openapi.ts';
import { makeSchedulesHandler } from '../functions/api/schedules-handler.ts';
import { makeScansHandler } from '../functions/api/scans-handler.ts';
import { makeDeadLetterHandler, makeDispatchHandler } from '../functions/dispatch-handler.ts';
import { makeDynamoDbFindingRepository } from '../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbScanRepository } from '../shared/adapters/dynamodb/dynamodb-scan-repository.ts';
import { makeDynamoDbIssueRepository } from '../shared/adapters/dynamodb/dynamodb-issue-repository.ts';
import { makeDynamoDbDigestStore } from '../shared/adapters/dynamodb/dynamodb-digest-store.ts';
import { makeDynamoDbSlaRepository } from '../shared/adapters/dynamodb/dynamodb-sla-repository.ts';
import type { FindingRepository } from '../shared/ports/finding-repository.ts';
import type { RunnerRegistry, ScanRunner } from '../shared/ports/scan-runner.ts';
import type { ScanType } from '../shared/domain/scan-types.ts';
import { makeDynamoDbArtifactRepository } from '../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { makeLocalArtifactStore } from '../shared/adapters/local/local-artifact-store.ts';
import type { ArtifactStore } from '../shared/ports/artifact-store.ts';
import { makeArtifactService } from '../shared/services/artifact-service.ts';
import { makeArtifactUploadEndpoint } from './artifact-upload.ts';
import { makeFileScanLogs } from './file-scan-logs.ts';
import { LocalQueueConsumer } from './queue-consumer.ts';
import { LocalDigestTicker } from './digest-ticker.ts';
import { startDynalite } from './dynalite.ts';
import { makeLocalRequestListener, type LambdaLikeHandler } from './http-server.ts';
import { makeInvocationScope } from './invocation-scope.ts';
import { makeReconcileEndpoint } from './reconcile-endpoint.ts';
import { loadOrCreateSessionKey } from './session-key.ts';
import { makeUiHandler } from './web-ui.ts';
import { signSessionToken, verifySessionToken } from '../shared/auth/session-token.ts';
import { makeSignInCodes } from './sign-in-codes.ts';
import type { Role } from '../shared/domain/identity.ts';
import { makeLocalBackfillEndpoint } from './backfill-endpoint.ts';
import type { FireMessage } from '../shared/domain/messages.ts';
import { makeRunRecovery } from '../shared/services/run-recovery.ts';
import { makeDynamoDbLegacyMarkerRepository } from '../shared/adapters/dynamodb/dynamodb-legacy-marker-repository.ts';
import { makeDynamoDbNotificationRuleRepository } from '../shared/adapters/dynamodb/dynamodb-notification-rule-repository.ts';
import { localNotificationQueue, queueEventPublisher } from '../shared/adapters/local/local-notifications.ts';
import { makeOutboxEmailSender, makeSmtpEmailSender } from '../shared/adapters/notifications/email-senders.ts';
import { makeHttpPoster } from '../shared/adapters/notifications/http-poster.ts';
import type { RetryOptions } from '../lib/retry.ts';
import { composeNotificationServices } from '../shared/services/compose/notification-service.ts';
import { makeNotifierHandler } from '../functions/notifier-handler.ts';
import { makeDynamoDbCredentialRepository } from '../shared/adapters/dynamodb/dynamodb-credential-repository.ts';
import { makeLocalKeyWrapper } from '../shared/adapters/local/local-key-wrapper.ts';
import { withCredential } from '../shared/adapters/runners/credential-resolving-runner.ts';
import { withCredentialTarget } from '../shared/adapters/runners/credential-target-runner.ts';
import { makeCredentialOpener } from '../shared/services/credential-opener.ts';
import { makeCredentialReferences } from '../shared/services/credential-references.ts';
import { makeCredentialService } from '../shared/services/credential-service.ts';

export const LOCAL_TABLE_NAME = 'scan-service-local';
/**
 * Scans the local consumer runs at once: a laptop's share of what dispatch does in AWS (20 in dev,
 * 300 in prod), small enough that four mailscan processes and dynalite share two cores.
 */
export const DEFAULT_DISPATCH_CONCURRENCY = 4;

/**
 * The deployed settings (infra/, cdk.json): the standard class's dispatch timeout, visibility 6 ×
 * that, 5 receives. One local scan queue carries every resource class: a message of another class
 * (llmscan's long) gets that class's function timeout and 6 × it as its visibility, as its own
 * queue and dispatch function give it in AWS (docs/resource-classes.md).
 */
export const DISPATCH_TIMEOUT_MS = RESOURCE_CLASSES.standard.timeoutSeconds * 1000;
const QUEUE_VISIBILITY_MS = 6 * DISPATCH_TIMEOUT_MS;
const classTimeoutMs = (resourceClass: ResourceClass): number => RESOURCE_CLASSES[resourceClass].timeoutSeconds * 1000;
const CLASS_VISIBILITY_MS = Object.fromEntries(
  (Object.keys(RESOURCE_CLASSES) as ResourceClass[]).map((name) => [name, 6 * classTimeoutMs(name)]),
) as Record<ResourceClass, number>;
const QUEUE_MAX_RECEIVES = 5;
/** The notification queue: a delivery's three attempts fit well inside it before it reappears. */
const NOTIFICATION_VISIBILITY_MS = 2 * 60 * 1000;
/** The sender of local notification email (SMTP_URL or the outbox). */
export const LOCAL_NOTIFICATION_SENDER = 'scan-service@localhost';

export interface LocalRuntimeOptions {
  port?: number;
  /** Persist dynalite and the session key here; omit for an in-memory store (tests). */
  dataDir?: string;
  /** Where the session key lives when dataDir is omitted; defaults to a random in-memory key. */
  sessionKey?: string;
  clock?: Clock;
  ids?: IdGenerator;
  quota?: number;
  allowedOrigins?: string[];
  /** Let tenants scan private ranges (ALLOW_PRIVATE_TARGETS=true for npm start); refused by default. */
  allowPrivateTargets?: boolean;
  /**
   * `ALLOW_LOOPBACK_TARGETS=true`: loopback targets (127.0.0.0/8, ::1, localhost) are accepted, so
   * the engines can be tried against local servers (DESIGN §11). Local only; AWS has no such switch.
   */
  allowLoopbackTargets?: boolean;
  /** Wraps the trigger scheduler (tests inject faults with it). */
  wrapTriggers?: (scheduler: TriggerScheduler) => TriggerScheduler;
  /**
   * Scan runners by scan type; none by default (every scan then fails with "no runner"). A function
   * is given the runtime's artifact store, which the engines' runners fetch a scope's artifacts from.
   */
  runners?: RunnerRegistry | ((ports: { artifacts: ArtifactStore }) => RunnerRegistry);
  /** Wraps the finding repository (tests inject crashes with it). */
  wrapFindings?: (findings: FindingRepository) => FindingRepository;
  /** Function timeout the local consumer gives each invocation; by default its message's resource class's. */
  dispatchTimeoutMs?: number;
  /**
   * Scan messages handled at once (DEFAULT_DISPATCH_CONCURRENCY), the local counterpart of the
   * dispatch event source's MaximumConcurrency. `npm start` reads DISPATCH_CONCURRENCY.
   */
  dispatchConcurrency?: number;
  /** Run the scheduler and consumers on real timers (npm start); tests drive `drain()` themselves. */
  startTimers?: boolean;
  logger?: Logger;
  /** Where the service's metrics go; by default the structured log, as `metric` lines. */
  metrics?: Metrics;
  version?: string;
  /** Serve the built web UI from this directory (web/dist) at `/`. */
  uiDir?: string;
  /**
   * Called after every DynamoDB call succeeds, with its command name and its (wire-format) input:
   * tests throw here to kill a worker between steps; bench:dispatch records the calls to replay.
   */
  afterDynamoCall?: (commandName: string, input: unknown) => void;
  /**
   * Called before every DynamoDB call is sent, with its command name and (wire-format) input,
   * whether it then succeeds or not (a refused conditional write needs its permission too): the
   * table-grant test attributes each call to the Lambda function that would make it in AWS.
   */
  beforeDynamoCall?: (commandName: string, input: unknown) => void;
  /** `SMTP_URL`: notification email goes to this SMTP server; without it, to DATA_DIR/outbox/outbox.jsonl. */
  smtpUrl?: string;
  /**
   * Answer whole, as API Gateway and Lambda do (tests of the AWS path): the CSV export is then one
   * body of at most 5.5 MB. By default the local server streams it.
   */
  bufferResponses?: boolean;
  /** The backoff between a delivery's attempts (tests record the delays instead of waiting them). */
  notificationRetry?: Partial<RetryOptions>;
}

export type LocalRuntime = Awaited<ReturnType<typeof startLocalRuntime>>;

/**
 * Everything `npm start` runs in one process: dynalite, the in-process scheduler and queue, and
 * the same handlers as the Lambda functions behind a local HTTP server. Only the adapters differ.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? makeLogger('local');
  // Before the first SDK call: see makeInvocationScope.
  const scope = await makeInvocationScope();
  if (!scope.isolated) logger.warn('requests share logger keys: an AWS SDK call preceded the local runtime in this process');
  const dynamo = await startDynalite({
    path: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined,
    tableName: LOCAL_TABLE_NAME,
  });
  const documentClient = makeDocumentClient(dynamo.clientConfig);
  // Counts DynamoDB calls by command, for benchmarks and the cost test (requests per fire).
  const dynamoRequests = new Map<string, number>();
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      dynamoRequests.set(command, (dynamoRequests.get(command) ?? 0) + 1);
      options.beforeDynamoCall?.(command, args.input);
      const output = await next(args);
      options.afterDynamoCall?.(command, args.input);
      return output;
    },
    { step: 'initialize', name: 'countDynamoRequests' },
  );
  const repo: ScheduleRepository = makeDynamoDbScheduleRepository(documentClient, LOCAL_TABLE_NAME);

  /** A queue whose messages go to its dead-letter queue after QUEUE_MAX_RECEIVES receives, as the stack's SQS queues do. */
  const queueWithDeadLetters = (
    name: string,
    deadLetterName: string,
    visibilityTimeoutMs: number,
    visibilityTimeoutMsByClass?: Partial<Record<ResourceClass, number>>,
  ) => {
    const deadLetters = new LocalQueue({ name: deadLetterName, clock, visibilityTimeoutMs });
    const queue = new LocalQueue({
      name,
      clock,
      visibilityTimeoutMs,
      visibilityTimeoutMsByClass,
      maxReceiveCount: QUEUE_MAX_RECEIVES,
      deadLetterQueue: deadLetters,
    });
    return { queue, deadLetters };
  };
  const { queue: scanQueue, deadLetters: deadLetterQueue } = queueWithDeadLetters(
    'scan',
    'scan-dlq',
    QUEUE_VISIBILITY_MS,
    CLASS_VISIBILITY_MS,
  );
  const scheduler = new LocalTriggerScheduler({
    clock,
    queue: scanQueue,
    onError: (error) => logger.error('local scheduler run failed', { error }),
  });
  const triggers = options.wrapTriggers ? options.wrapTriggers(scheduler) : scheduler;

  // Triggers live in memory: re-arm them from the table, the source of truth, at every start.
  let rearmed = 0;
  for await (const row of repo.listAll()) {
    const trigger = targetedTrigger(row);
    if (trigger) {
      await scheduler.sync(row.tenant, row.id, trigger);
      rearmed += 1;
    }
  }

  const scans = makeDynamoDbScanRepository(documentClient, LOCAL_TABLE_NAME);
  const baseFindings = makeDynamoDbFindingRepository(documentClient, LOCAL_TABLE_NAME);
  const findings = options.wrapFindings ? options.wrapFindings(baseFindings) : baseFindings;
  const issues = makeDynamoDbIssueRepository(documentClient, LOCAL_TABLE_NAME);
  // Without a data directory (tests), scan logs go to a temporary one removed at stop().
  const tempDir = options.dataDir ? null : await mkdtemp(join(tmpdir(), 'scan-service-'));
  const scanLogs = makeFileScanLogs(join(options.dataDir ?? tempDir!, 'logs', 'scans'), logger);
  const ids = options.ids ?? makeUlidGenerator(() => clock.now().getTime());
  // The same wiring as the Lambda composition roots (functions/): only the adapters differ.
  // The metrics the Lambda functions send to CloudWatch (EMF) go to the structured log here.
  const metrics = options.metrics ?? makeLogMetrics({ logger, environment: 'local' });
  const sessionKey =
    options.sessionKey ?? (options.dataDir ? await loadOrCreateSessionKey(options.dataDir) : randomBytes(48).toString('base64url'));
  const artifactRepo = makeDynamoDbArtifactRepository(documentClient, LOCAL_TABLE_NAME);
  let baseUrl = '';
  const artifactStore = makeLocalArtifactStore({
    root: join(options.dataDir ?? tempDir!, 'artifacts'),
    baseUrl: () => baseUrl,
    signingKey: sessionKey,
  });
  const artifacts = makeArtifactService({ repo: artifactRepo, store: artifactStore, ids, clock, logger });
  // The tenant vault (DESIGN §16): sealed in the table under the key file DATA_DIR/credential-master.key.
  const credentialRepo = makeDynamoDbCredentialRepository(documentClient, LOCAL_TABLE_NAME);
  const credentialKey = await makeLocalKeyWrapper(options.dataDir ?? tempDir!);
  const credentialReferences = makeCredentialReferences(credentialRepo);
  const credentialOpener = makeCredentialOpener({ repo: credentialRepo, wrapper: credentialKey, clock });
  // Every runner sees the scope's credential, opened for the run (DESIGN §16).
  const given = typeof options.runners === 'function' ? options.runners({ artifacts: artifactStore }) : options.runners;
  const runners: RunnerRegistry = new Map(
    [...(given ?? new Map<never, never>()).entries()].map(
      ([type, runner]: [ScanType, ScanRunner]) =>
        [
          type,
          withCredentialTarget(withCredential(runner, credentialOpener), credentialOpener, {
            issues,
            findings: baseFindings,
            scans,
            clock,
          }),
        ] as const,
    ),
  );
  const targetPolicy = { allowPrivate: options.allowPrivateTargets ?? false, allowLoopback: options.allowLoopbackTargets ?? false };
  // A scan type is accepted on create only where a runner runs it (DESIGN §4).
  const runnerTypes = new Set(runners.keys());
  const services = composeScanServices({ schedules: repo, scans, findings, issues, clock, ids, logger, targetPolicy, runnerTypes });
  // Listen first: the allowed origins of the CSRF check and the links in notifications include the port the OS hands out.
  const server = createServer();
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  baseUrl = url;
  // Notifications (DESIGN §15): events go to the in-process notification queue, as the bus rule
  // puts them on the SQS queue in AWS; the notifier consumes it here with the same handler.
  const { queue: notificationQueue, deadLetters: notificationDeadLetters } = queueWithDeadLetters(
    'notifications',
    'notification-dlq',
    NOTIFICATION_VISIBILITY_MS,
  );
  const notificationMessages = localNotificationQueue(notificationQueue);
  const notificationRules = makeDynamoDbNotificationRuleRepository(documentClient, LOCAL_TABLE_NAME);
  const outboxDir = join(options.dataDir ?? tempDir!, 'outbox');
  const { delivery, notifications } = composeNotificationServices(
    { clock, ids, logger },
    {
      rules: notificationRules,
      queue: notificationMessages,
      http: makeHttpPoster({ policy: targetPolicy, allowLoopback: targetPolicy.allowLoopback }),
      email: options.smtpUrl
        ? await makeSmtpEmailSender(options.smtpUrl, LOCAL_NOTIFICATION_SENDER)
        : makeOutboxEmailSender(outboxDir, LOCAL_NOTIFICATION_SENDER),
      appUrl: url,
      targetPolicy,
      allowLoopback: targetPolicy.allowLoopback,
      retryOptions: options.notificationRetry,
      digests: makeDynamoDbDigestStore(documentClient, LOCAL_TABLE_NAME),
    },
  );
  // The hourly digest flush (the stack's schedule in AWS): a clock tick, every minute under npm start.
  const digestTicker = new LocalDigestTicker({ clock, delivery, onError: (error) => logger.error('digest flush failed', { error }) });
  const dispatch = services.dispatchService({
    runners,
    scanLogs,
    metrics,
    events: queueEventPublisher(notificationMessages),
    outputs: { store: artifactStore, repo: artifactRepo, ids },
  });
  const issueService = makeIssueService({
    issues,
    findings,
    scans,
    sla: makeDynamoDbSlaRepository(documentClient, LOCAL_TABLE_NAME),
    clock,
    logger,
  });
  const scanService = services.scanService({ queue: scanQueue, scanLogs, artifacts, credentials: credentialReferences });
  const onError = (error: unknown) => logger.error('local consumer failed', { error });
  const dispatchTimeoutMs = options.dispatchTimeoutMs;
  const consumer = new LocalQueueConsumer(scanQueue, makeDispatchHandler(dispatch, logger, metrics), {
    functionTimeoutMs: dispatchTimeoutMs ?? ((batch) => Math.max(...batch.map((message) => classTimeoutMs(message.resourceClass)))),
    concurrency: options.dispatchConcurrency ?? DEFAULT_DISPATCH_CONCURRENCY,
    onError,
  });
  const deadLetterConsumer = new LocalQueueConsumer(deadLetterQueue, makeDeadLetterHandler(dispatch, logger), {
    batchSize: 10,
    functionTimeoutMs: 60_000,
    onError,
  });
  // The notifier: a failed delivery reappears after the visibility timeout, and after five
  // receives it stays in the notification DLQ (nothing consumes it, as in AWS).
  // One message per batch and a few at once: an endpoint that is slow or failing (three attempts
  // with backoff) holds up only its own deliveries.
  const notifier = new LocalQueueConsumer(notificationQueue, makeNotifierHandler(delivery, logger), {
    batchSize: 1,
    concurrency: 4,
    functionTimeoutMs: 60_000,
    onError,
  });

  // The local queue lives in memory: a restart loses its messages, so put a scan message back for
  // every job the last run left queued or running (SQS keeps them in AWS). Dispatch then finishes
  // each exactly once, as it would a redelivery.
  let requeued = 0;
  for await (const job of scans.listUnfinished()) {
    scanQueue.sendRaw(JSON.stringify({ kind: 'scan', tenant: job.tenant, scan_id: job.id }), resourceClassOf(job.scan_type));
    requeued += 1;
  }

  // A lost fire goes back on the queue: locally nothing else holds it (SQS does in AWS).
  const requeueFire = async (fire: FireMessage) => scanQueue.send(fire);
  // Then the schedules a crash left behind their newest job (docs/scans.md, "Crashes"): settled here
  // as SQS redelivery settles them in AWS.
  const recovery = makeRunRecovery({ schedules: repo, scans, ids });
  let recovered = 0;
  for await (const row of repo.listAll()) {
    // Both crash windows leave the row `running`; reconcile looks at every row (one Query each).
    if (row.last_run_status !== 'running') continue;
    const run = await recovery.inspect(row);
    if (!run) continue;
    logger.warn('schedule run recovered at start', {
      tenant: run.tenant,
      schedule_id: run.schedule_id,
      kind: run.kind,
      scan_id: run.scan_id,
    });
    if (run.kind === 'lost_fire' && run.fire) await requeueFire(run.fire);
    else await recovery.repair(run);
    recovered += 1;
  }

  const schedules = services.scheduleService({ triggers, quota: options.quota ?? 500, artifacts, credentials: credentialReferences });
  const credentials = makeCredentialService({ repo: credentialRepo, wrapper: credentialKey, clock, logger, targetPolicy });
  const reconciler = services.reconcileService({ triggers, requeueFire });

  // Each request is one invocation with its own logger keys, even while others are in flight.
  const inScope =
    (handler: LambdaLikeHandler): LambdaLikeHandler =>
    (event, context) =>
      scope.run(context.awsRequestId, () => handler(event, context));
  const legacyMarkers = makeDynamoDbLegacyMarkerRepository(documentClient, LOCAL_TABLE_NAME);

  const allowedOrigins = [url, `http://localhost:${port}`, ...(options.allowedOrigins ?? [])];
  const version = options.version ?? '0.1.0';
  // Sign-in links printed by `npm start` carry a one-time code, spent on use and remembered across
  // restarts (its hash, under DATA_DIR); a token pasted from `npm run session` may sign in again.
  const signInCodes = makeSignInCodes(join(options.dataDir ?? tempDir!, 'sign-in-codes.json'), () => new Date());
  async function exchangeSignInCode(code: string): Promise<{ token: string; expires_at: string } | null> {
    const who = await signInCodes.redeem(code);
    if (who === null) return null;
    const token = await signSessionToken({ sub: `${who.role}@${who.tenant}`, tenant: who.tenant, role: who.role }, sessionKey);
    const { expires_at } = await verifySessionToken(token, sessionKey);
    return { token, expires_at };
  }
  // The API's routes as declared (functions/api/routes.ts), as AWS has them.
  const apiRoutes = routes;
  server.on(
    'request',
    makeLocalRequestListener({
      routes: apiRoutes,
      sessionKey,
      handlers: {
        schedules: inScope(makeSchedulesHandler({ schedules, notifications, credentials, logger, allowedOrigins })),
        scans: inScope(
          makeScansHandler(
            { scans: scanService, artifacts, issues: issueService, logger, allowedOrigins },
            { streaming: !options.bufferResponses },
          ),
        ),
        meta: inScope(
          makeMetaHandler({
            version,
            runners: new Set(runners.keys()),
            targetPolicy,
            logger,
            allowedOrigins,
            secureCookie: false,
            exchangeSignInCode,
            openApiDocument: async () => buildOpenApiDocument(version, routes),
            engineViews: async () => engineViews(),
          }),
        ),
      },
      serveUi: options.uiDir ? makeUiHandler(options.uiDir, () => url) : undefined,
      rawEndpoints: makeArtifactUploadEndpoint({ store: artifactStore, repo: artifactRepo, artifacts, clock }),
      localEndpoints: {
        '/_local/reconcile': makeReconcileEndpoint(sessionKey, (options) => reconciler.reconcile(options)),
        '/_local/backfill': makeLocalBackfillEndpoint({ adminKey: sessionKey, markers: legacyMarkers, schedules, clock, ids, logger }),
      },
    }),
  );

  if (options.startTimers) {
    scheduler.start();
    consumer.start();
    deadLetterConsumer.start();
    notifier.start();
    digestTicker.start();
  }

  /**
   * One turn of the scan path: due fires, the scan queue, then the DLQ. The notifications the scans
   * published wait for `notifier.drain()`: another function in AWS, whose requests are not the
   * scan's (test/integration/fire-cost.test.ts counts the scan's).
   */
  async function drain(): Promise<void> {
    await scheduler.runDue();
    await consumer.drain();
    await deadLetterConsumer.drain();
  }

  return {
    url,
    port,
    sessionKey,
    /** The routes the server serves under /api (test/infra/route-surfaces.test.ts compares them with AWS's). */
    apiRoutes,
    repo,
    scheduler,
    scanQueue,
    deadLetterQueue,
    schedules,
    scans,
    findings,
    issues,
    dispatch,
    consumer,
    deadLetterConsumer,
    /** The notification queue (events, then one delivery per matching rule), its consumer and its DLQ. */
    notificationQueue,
    notifier,
    notificationDeadLetters,
    notificationRules,
    /** The hourly digest flush: `tick()` sends the digests due by the clock (a timer ticks it under npm start). */
    digestTicker,
    /** Where notification email goes without an SMTP server: one JSON line per message. */
    outboxFile: join(outboxDir, 'outbox.jsonl'),
    drain,
    reconciler,
    artifacts,
    artifactStore,
    /** The tenant vault's items (raw reads in tests) and its service. */
    credentialRepo,
    credentials,
    /** A one-time sign-in URL for `role` of `tenant` (DESIGN §8): the UI posts its code to POST /api/session/code. */
    async signInUrl(tenant = 'local', role: Role = 'admin'): Promise<string> {
      return `${url}/#code=${await signInCodes.issue(tenant, role)}`;
    },
    legacyMarkers,
    rearmed,
    requeued,
    recovered,
    dynamoEndpoint: dynamo.endpoint,
    dynamoRequests,
    async stop(): Promise<void> {
      scheduler.stop();
      consumer.stop();
      deadLetterConsumer.stop();
      notifier.stop();
      digestTicker.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      documentClient.destroy();
      await dynamo.close();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    },
  };
}
