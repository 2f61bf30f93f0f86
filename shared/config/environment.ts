/**
 * Names of the environment variables the Lambda functions read. The CDK stack sets them with these
 * constants; shared/config/function-config.ts parses them with zod at cold start.
 */
export const ENV = {
  /** DynamoDB table of schedules, scans, findings. */
  tableName: 'TABLE_NAME',
  /** EventBridge Scheduler group holding one schedule per enabled row. */
  scheduleGroupName: 'SCHEDULE_GROUP_NAME',
  /** ARN of the standard class's scan queue: the trigger target (another class's: classVariable). */
  scanQueueArn: 'SCAN_QUEUE_ARN',
  /** URL of the standard class's scan queue (run now, manual scans; another class's: classVariable). */
  scanQueueUrl: 'SCAN_QUEUE_URL',
  /** The resource class (DESIGN §11) of a dispatch function: its scan deadline and memory. */
  resourceClass: 'RESOURCE_CLASS',
  /** Role EventBridge Scheduler assumes to send to the scan queue. */
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  /** Queue for fires the scheduler could not deliver. */
  schedulerDlqArn: 'SCHEDULER_DLQ_ARN',
  /** Secrets Manager secret holding the HS256 session key. */
  sessionKeySecretArn: 'SESSION_KEY_SECRET_ARN',
  /** Comma-separated API Gateway route keys only a Bearer token authenticates (the authorizer; from the route table). */
  bearerOnlyRoutes: 'BEARER_ONLY_ROUTES',
  /** Secrets Manager secret holding the scanner's operator keys (a JSON object of MAILSCAN_*_KEY). */
  operatorKeysSecretArn: 'OPERATOR_KEYS_SECRET_ARN',
  /** Comma-separated origins allowed to send mutating browser requests (CSRF check). */
  allowedOrigins: 'ALLOWED_ORIGINS',
  /** `true` lets tenants scan private ranges (default false: refused at the API). */
  allowPrivateTargets: 'ALLOW_PRIVATE_TARGETS',
  /** Per-tenant schedule quota (default 500). */
  scheduleQuota: 'SCHEDULE_QUOTA',
  /** dev | prod. */
  environment: 'APP_ENV',
  /** Log group of the standard class's dispatch function: where a ScanJob's log lines are (its `log` field; another class's: classVariable). */
  dispatchLogGroup: 'DISPATCH_LOG_GROUP',
  /** Path of the mailscan executable (the layer mounts it at /opt/bin/mailscan). */
  enginesDir: 'ENGINES_DIR',
  /** Comma-separated scan types the dispatch function has runners for (GET /api/scan-types/). */
  scanRunners: 'SCAN_RUNNERS',
  /** Secrets Manager secret (name) holding the legacy PostgreSQL URL: the backfill function only. */
  legacyDatabaseSecretName: 'LEGACY_DATABASE_SECRET_NAME',
  /** S3 bucket of uploaded artifacts (DMARC reports, .eml), keys `<tenant>/<id>`. */
  artifactBucket: 'ARTIFACT_BUCKET',
  /** The stack's EventBridge custom bus of scan.finished and issue.* events (DESIGN §15): dispatch publishes to it. */
  eventBusName: 'EVENT_BUS_NAME',
  /** URL of the notification queue: the notifier puts one delivery per matching rule back on it. */
  notificationQueueUrl: 'NOTIFICATION_QUEUE_URL',
  /** The SES-verified address notification emails come from. */
  notificationSender: 'NOTIFICATION_SENDER',
  /** The UI's origin, for the links in notifications. */
  appUrl: 'APP_URL',
  /** ARN of the stack's KMS key of the credential vault (DESIGN §16): schedules Encrypt, dispatch Decrypt. */
  credentialKeyArn: 'CREDENTIAL_KEY_ARN',
  /** Service version shown by /api/health. */
  serviceVersion: 'SERVICE_VERSION',
} as const;

/** The resource classes of DESIGN §11, in order (shared/domain/resource-class.ts has their settings). */
export const RESOURCE_CLASS_NAMES = ['standard', 'long'] as const;

/**
 * The variable that holds `base` for `resourceClass`: `base` itself for the standard class (the
 * names the stack has always set), `<base>_<CLASS>` for another (`SCAN_QUEUE_URL_LONG`).
 */
export function classVariable<B extends string>(base: B, resourceClass: (typeof RESOURCE_CLASS_NAMES)[number]): B | `${B}_${string}` {
  return resourceClass === 'standard' ? base : `${base}_${resourceClass.toUpperCase()}`;
}
