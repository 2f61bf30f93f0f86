import * as z from 'zod';
import { ENV, RESOURCE_CLASS_NAMES, classVariable } from './environment.ts';

// Configuration of every Lambda function (one schema each, not only the API's), parsed once at
// cold start: a missing variable fails the first invocation after a deploy rather than a
// customer's request later. Each schema is a function, built only by the function that reads it:
// building all of them (with pick/extend) in every function cost each cold start a few
// milliseconds of zod for schemas it never used.

const items = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const list = () => z.string().default('').transform(items);

/** The variables the API functions share. */
const api = {
  [ENV.tableName]: () => z.string().min(1),
  [ENV.allowedOrigins]: list,
  [ENV.scheduleQuota]: () => z.coerce.number().int().min(1).default(500),
  [ENV.serviceVersion]: () => z.string().default('0.1.0'),
  [ENV.allowPrivateTargets]: () =>
    z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
};

type ResourceClassName = (typeof RESOURCE_CLASS_NAMES)[number];

/**
 * `base` for each resource class other than standard (`SCAN_QUEUE_URL_LONG`), each optional: a
 * stack whose engines name no such class sets none (docs/resource-classes.md).
 */
function otherClassFields(base: string, schema: () => z.ZodType<string>): Record<string, z.ZodOptional<z.ZodType<string>>> {
  return Object.fromEntries(
    RESOURCE_CLASS_NAMES.filter((name) => name !== 'standard').map((name) => [classVariable(base, name), schema().optional()]),
  );
}

/** A per-class value of a parsed config: the standard class's under `base`, the others' under classVariable. */
export function byResourceClass(config: Record<string, unknown>, base: string): Partial<Record<ResourceClassName, string>> {
  const values: Partial<Record<ResourceClassName, string>> = {};
  for (const name of RESOURCE_CLASS_NAMES) {
    const value = config[classVariable(base, name)];
    if (typeof value === 'string') values[name] = value;
  }
  return values;
}

/** What the EventBridge Scheduler adapter needs (schedules, reconcile, backfill). */
const triggerFields = () => ({
  [ENV.scheduleGroupName]: z.string().min(1),
  [ENV.scanQueueArn]: z.string().startsWith('arn:'),
  ...otherClassFields(ENV.scanQueueArn, () => z.string().startsWith('arn:')),
  [ENV.schedulerRoleArn]: z.string().startsWith('arn:'),
  [ENV.schedulerDlqArn]: z.string().startsWith('arn:'),
});
export const TriggerConfig = () => z.object(triggerFields());
export type TriggerConfig = z.infer<ReturnType<typeof TriggerConfig>>;

/** Parses `env` with the schema `build` returns; names every missing or malformed variable. */
export function readConfig<S extends z.ZodType>(build: () => S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = build().safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new Error(`invalid configuration: ${names}`);
  }
  return parsed.data;
}

// One schema per function, read once at cold start by its composition root (functions/).

export const SchedulesConfig = () =>
  z.object({
    [ENV.tableName]: api.TABLE_NAME(),
    [ENV.allowedOrigins]: api.ALLOWED_ORIGINS(),
    [ENV.scheduleQuota]: api.SCHEDULE_QUOTA(),
    [ENV.allowPrivateTargets]: api.ALLOW_PRIVATE_TARGETS(),
    ...triggerFields(),
    // The notification test endpoint's one delivery (notificationFields, optional here until the
    // stack sets them): without a sender an email test answers why; links fall back to the first
    // allowed origin.
    [ENV.notificationSender]: z.email().optional(),
    [ENV.appUrl]: z.url({ protocol: /^https?$/ }).optional(),
    /** The vault's KMS key: credentials are sealed with it (Encrypt only). */
    [ENV.credentialKeyArn]: z.string().startsWith('arn:'),
  });

export const ScansConfig = () =>
  z.object({
    [ENV.tableName]: api.TABLE_NAME(),
    [ENV.allowedOrigins]: api.ALLOWED_ORIGINS(),
    [ENV.allowPrivateTargets]: api.ALLOW_PRIVATE_TARGETS(),
    [ENV.scanQueueUrl]: z.string().url(),
    ...otherClassFields(ENV.scanQueueUrl, () => z.string().url()),
    [ENV.dispatchLogGroup]: z.string().min(1),
    ...otherClassFields(ENV.dispatchLogGroup, () => z.string().min(1)),
    [ENV.artifactBucket]: z.string().min(3),
  });

export const MetaConfig = () =>
  z.object({
    [ENV.allowedOrigins]: api.ALLOWED_ORIGINS(),
    [ENV.serviceVersion]: api.SERVICE_VERSION(),
    /** The scan types the dispatch function has runners for (email_security with the mailscan layer). */
    [ENV.scanRunners]: list(),
    [ENV.allowPrivateTargets]: api.ALLOW_PRIVATE_TARGETS(),
  });

export const AuthorizerConfig = () =>
  z.object({
    [ENV.sessionKeySecretArn]: z.string().min(1),
    // Required: without it a cookie could sign in where only the Bearer token may (DESIGN §8).
    [ENV.bearerOnlyRoutes]: z.string().transform(items),
  });

export const ReconcileConfig = () => z.object({ [ENV.tableName]: api.TABLE_NAME(), ...triggerFields() });

export const DispatchConfig = () =>
  z.object({
    [ENV.tableName]: api.TABLE_NAME(),
    /** Where the engines' layer mounts their CLIs (/opt/bin); without it only "no runner" failures are possible. */
    [ENV.enginesDir]: z.string().min(1).optional(),
    /** The artifacts bucket the runner reads scope.rua / scope.header from; required with the layer. */
    [ENV.artifactBucket]: z.string().min(3).optional(),
    /** Private networks are in scope: the engines may connect to them (DESIGN §11). */
    [ENV.allowPrivateTargets]: api.ALLOW_PRIVATE_TARGETS(),
    /** The operator keys secret (docs/operations.md); without it the scanner gets no keys. */
    [ENV.operatorKeysSecretArn]: z.string().min(1).optional(),
    /** dev | prod: the `environment` dimension of the service's metrics. */
    [ENV.environment]: z.string().min(1).optional(),
    /** The stack's event bus (DESIGN §15); without it scans publish no events. */
    [ENV.eventBusName]: z.string().min(1).optional(),
    /** The vault's KMS key (Decrypt only); without it a scope.credential fails its target. */
    [ENV.credentialKeyArn]: z.string().startsWith('arn:').optional(),
    /** The resource class whose queue this function consumes (DESIGN §11): its scan deadline and memory. */
    [ENV.resourceClass]: z.enum(RESOURCE_CLASS_NAMES).default('standard'),
    /** Set by Lambda: the function's own log group, where a job's log lines are. */
    AWS_LAMBDA_LOG_GROUP_NAME: z.string().min(1).optional(),
  });

/** The backfill function: the schedule service's settings, and where the legacy database URL is kept. */
export const BackfillConfig = () =>
  z.object({
    [ENV.tableName]: api.TABLE_NAME(),
    [ENV.scheduleQuota]: api.SCHEDULE_QUOTA(),
    [ENV.allowPrivateTargets]: api.ALLOW_PRIVATE_TARGETS(),
    ...triggerFields(),
    [ENV.legacyDatabaseSecretName]: z.string().min(1),
  });

/** The artifact-check function: the table and the bucket the notifications come from. */
export const ArtifactConfig = () =>
  z.object({
    [ENV.tableName]: api.TABLE_NAME(),
    [ENV.artifactBucket]: z.string().min(3),
  });

/**
 * What a notification is sent with (the notifier, and the API function whose test endpoint makes
 * one delivery): the sender of emails and the UI origin of links.
 */
export const notificationFields = () => ({
  [ENV.notificationSender]: z.email(),
  [ENV.appUrl]: z.url({ protocol: /^https?$/ }),
});

/** The notifier: the rules (table), the notification queue it fans deliveries out to, the sender. */
export const NotifierConfig = () =>
  z.object({
    [ENV.tableName]: api.TABLE_NAME(),
    [ENV.notificationQueueUrl]: z.string().url(),
    ...notificationFields(),
  });
export type NotifierConfig = z.infer<ReturnType<typeof NotifierConfig>>;
