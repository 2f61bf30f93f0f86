import * as z from 'zod';
import { ENV } from './environment.ts';

const list = z.string().default('').transform((value) => value.split(',').map((item) => item.trim()).filter(Boolean));

/**
 * Configuration of the API functions, parsed once at cold start: a missing variable fails the
 * first invocation after a deploy rather than a customer's request later.
 */
export const ApiConfig = z.object({
  [ENV.tableName]: z.string().min(1),
  [ENV.allowedOrigins]: list,
  [ENV.scheduleQuota]: z.coerce.number().int().min(1).default(500),
  [ENV.serviceVersion]: z.string().default('0.1.0'),
  [ENV.allowPrivateTargets]: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
});

export const TriggerConfig = z.object({
  [ENV.scheduleGroupName]: z.string().min(1),
  [ENV.scanQueueArn]: z.string().startsWith('arn:'),
  [ENV.schedulerRoleArn]: z.string().startsWith('arn:'),
  [ENV.schedulerDlqArn]: z.string().startsWith('arn:'),
});

export function readConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new Error(`invalid configuration: ${names}`);
  }
  return parsed.data;
}

export const QueueConfig = z.object({
  [ENV.scanQueueUrl]: z.string().url(),
  [ENV.dispatchLogGroup]: z.string().min(1),
});

// One schema per function, read once at cold start by its composition root (functions/).

export const SchedulesConfig = ApiConfig.pick({ TABLE_NAME: true, ALLOWED_ORIGINS: true, SCHEDULE_QUOTA: true, ALLOW_PRIVATE_TARGETS: true }).extend(TriggerConfig.shape);

export const ScansConfig = ApiConfig.pick({ TABLE_NAME: true, ALLOWED_ORIGINS: true, ALLOW_PRIVATE_TARGETS: true })
  .extend(QueueConfig.shape)
  .extend({ [ENV.artifactBucket]: z.string().min(3) });

export const MetaConfig = ApiConfig.pick({ ALLOWED_ORIGINS: true, SERVICE_VERSION: true }).extend({
  /** The scan types the dispatch function has runners for (email_security with the mailscan layer). */
  [ENV.scanRunners]: list,
});

export const AuthorizerConfig = z.object({ [ENV.sessionKeySecretArn]: z.string().min(1) });

export const ReconcileConfig = ApiConfig.pick({ TABLE_NAME: true }).extend(TriggerConfig.shape);

export const DispatchConfig = ApiConfig.pick({ TABLE_NAME: true }).extend({
  /** Where the mailscan layer mounts the CLI; without it only "no runner" failures are possible. */
  [ENV.mailscanBin]: z.string().min(1).optional(),
  /** The artifacts bucket the runner reads scope.rua / scope.header from; required with the layer. */
  [ENV.artifactBucket]: z.string().min(3).optional(),
  /** The operator keys secret (docs/operations.md); without it the scanner gets no keys. */
  [ENV.operatorKeysSecretArn]: z.string().min(1).optional(),
  /** dev | prod: the `environment` dimension of the service's metrics. */
  [ENV.environment]: z.string().min(1).optional(),
  /** Set by Lambda: the function's own log group, where a job's log lines are. */
  AWS_LAMBDA_LOG_GROUP_NAME: z.string().min(1).optional(),
});

/** The backfill function: the schedule service's settings, and where the legacy database URL is kept. */
export const BackfillConfig = ApiConfig.pick({ TABLE_NAME: true, SCHEDULE_QUOTA: true, ALLOW_PRIVATE_TARGETS: true }).extend(TriggerConfig.shape).extend({
  [ENV.legacyDatabaseSecretName]: z.string().min(1),
});

export const ArtifactConfig = z.object({
  [ENV.artifactBucket]: z.string().min(3),
});
