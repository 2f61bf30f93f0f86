import { deployedResourceClasses, type ResourceClass } from '../shared/domain/resource-class.ts';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as z from 'zod';

/** The deployment environments this app knows; `-c env=<name>` picks one. */
export const environmentNames = ['dev', 'prod'] as const;
export type EnvironmentName = (typeof environmentNames)[number];

/** The dead-letter function's event-source cap (infra/constructs/dispatch.ts DEAD_LETTER_MAX_CONCURRENCY). */
export const DEAD_LETTER_CONCURRENCY = 5;

/** Whether SES identity `identity` (an address or a domain) lets `sender` send: the address itself, or an address in that domain or below it. */
export function senderIdentityCovers(identity: string, sender: string): boolean {
  const wanted = identity.toLowerCase();
  const address = sender.toLowerCase();
  if (wanted.includes('@')) return wanted === address;
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return domain === wanted || domain.endsWith(`.${wanted}`);
}

const retentionDays = new Set<number>(Object.values(RetentionDays).filter((value) => typeof value === 'number'));

/**
 * Per-environment settings, kept in cdk.json `context.environments.<env>` so an operator changes
 * a number there, not code. Validated strictly: a typo in cdk.json fails the synth.
 */
export const EnvironmentSettings = z
  .object({
    stackName: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/),
    /** EventBridge Scheduler group name: `[0-9A-Za-z._-]`, at most 64 characters. */
    scheduleGroupName: z.string().regex(/^[0-9A-Za-z._-]{1,64}$/),
    /** `retain` keeps the table, queues, secret and logs when the stack is deleted. */
    removalPolicy: z.enum(['retain', 'destroy']),
    logRetentionDays: z
      .number()
      .int()
      .refine((days) => retentionDays.has(days), {
        message: 'must be a CloudWatch Logs retention value (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...)',
      }),
    logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']),
    /** Origins allowed to send mutating browser requests (CSRF check) and CORS preflights. */
    allowedOrigins: z.array(z.url()).min(1),
    scheduleQuota: z.number().int().positive(),
    /**
     * Let tenants scan private ranges (RFC 1918, CGNAT, IPv6 ULA): for deployments that scan their
     * own network. Loopback, link-local and metadata addresses stay refused (docs/hostile-input.md).
     */
    allowPrivateTargets: z.boolean().default(false),
    scanQueue: z
      .object({
        /** At least 6x the dispatch function's timeout (SQS event source guidance); checked at synth. */
        visibilityTimeoutSeconds: z.number().int().min(0).max(43_200),
        retentionDays: z.number().int().min(1).max(14),
        /** Receives before a scan message moves to the scan DLQ. */
        maxReceiveCount: z.number().int().min(1).max(1000),
      })
      .strict(),
    dispatch: z
      .object({
        /**
         * Most concurrent dispatch invocations the scan queue's event source starts (SQS event
         * source `ScalingConfig.MaximumConcurrency`, 2-1000): back-pressure for the 02:00 burst.
         */
        maxConcurrency: z.number().int().min(2).max(1000),
        /**
         * The same cap for the long resource class's dispatch function (DESIGN §11,
         * docs/resource-classes.md): its scans hold 3 GB for up to 15 minutes, so fewer of them run at once.
         */
        longMaxConcurrency: z.number().int().min(2).max(1000).default(10),
        /**
         * The region's Lambda concurrency quota for the account (1,000 by default). Dispatch at its
         * cap, the dead-letter function and an API burst must fit in it together: invocations beyond
         * it are throttled, and a throttled scan message spends a receive without running
         * (npm run simulate:herd shows them; docs/scale.md).
         */
        accountConcurrency: z.number().int().min(10),
      })
      .strict(),
    /** Retention of both dead-letter queues: long enough to inspect and redrive. */
    deadLetterRetentionDays: z.number().int().min(1).max(14),
    api: z
      .object({
        throttleRateLimit: z.number().positive(),
        throttleBurstLimit: z.number().int().positive(),
      })
      .strict(),
    /**
     * The one-off backfill function (DESIGN §9, docs/backfill.md): created only when this block is
     * present. The legacy database is reached from these subnets with this security group; its URL
     * is kept in the named Secrets Manager secret.
     */
    backfill: z
      .object({
        legacyDatabaseSecretName: z.string().regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/),
        subnetIds: z
          .array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/))
          .min(1)
          .max(16),
        securityGroupId: z.string().regex(/^sg-[0-9a-f]{8,17}$/),
      })
      .strict()
      .optional(),
    /**
     * The adversary engine's IAM role (name, same account), granted sqs:SendMessage on the scan
     * queue so it can put adversary steps there (DESIGN §5); null when this environment has none.
     */
    adversaryEngineRoleName: z
      .string()
      .regex(/^[\w+=,.@-]{1,64}$/)
      .nullable()
      .default(null),
    /**
     * Name of the Secrets Manager secret of the scanner's operator keys (a JSON object of
     * MAILSCAN_*_KEY values); the stack creates it empty (docs/operations.md).
     */
    operatorKeysSecretName: z.string().regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/),
    /** Days between automatic rotations of the session key (Secrets Manager allows 1-1000). */
    sessionKeyRotationDays: z.number().int().min(1).max(1000),
    /**
     * Notifications (DESIGN §15, docs/notifications.md): emails come from `sender`, which SES must
     * accept from the verified identity `senderIdentity` (that address, or a domain it is in); the
     * notifier may send as that identity only.
     */
    notifications: z
      .object({
        sender: z.email(),
        senderIdentity: z.string().regex(/^[^\s@]+@[^\s@]+$|^[a-z0-9-]+(\.[a-z0-9-]+)+$/i),
      })
      .strict()
      .refine(({ sender, senderIdentity }) => senderIdentityCovers(senderIdentity, sender), {
        message: 'senderIdentity must be the sender address, its domain or a parent domain of it',
        path: ['senderIdentity'],
      }),
    /** EventBridge rule schedule of the nightly reconcile run. */
    reconcileCron: z.string().regex(/^cron\(.+\)$/),
  })
  .strict()
  .superRefine((settings, context) => {
    // Each class's dispatch at its cap, the dead-letter function at its cap on each class's DLQ
    // (one event source per DLQ, each with its own cap) and an API burst.
    const classes = deployedResourceClasses();
    const dispatching = classes.reduce((sum, name) => sum + dispatchConcurrency(settings, name), 0);
    const deadLetters = DEAD_LETTER_CONCURRENCY * classes.length;
    const needed = dispatching + deadLetters + settings.api.throttleBurstLimit;
    if (needed > settings.dispatch.accountConcurrency) {
      context.addIssue({
        code: 'custom',
        path: ['dispatch', 'maxConcurrency'],
        message:
          `dispatch at ${classes.map((name) => `${dispatchConcurrency(settings, name)} (${name})`).join(' + ')}, the dead-letter function at ${deadLetters} and an API burst of ` +
          `${settings.api.throttleBurstLimit} need ${needed} concurrent executions, more than dispatch.accountConcurrency ${settings.dispatch.accountConcurrency}`,
      });
    }
  });

/** A resource class's dispatch event source cap: `maxConcurrency` for standard, `longMaxConcurrency` for long. */
export function dispatchConcurrency(
  settings: { dispatch: { maxConcurrency: number; longMaxConcurrency: number } },
  name: ResourceClass,
): number {
  return name === 'long' ? settings.dispatch.longMaxConcurrency : settings.dispatch.maxConcurrency;
}
export type EnvironmentSettings = z.infer<typeof EnvironmentSettings>;

/** The app was started without a usable `-c env=...` or with invalid settings: an operator error. */
export class EnvironmentSelectionError extends Error {
  override readonly name = 'EnvironmentSelectionError';
}

function isEnvironmentName(value: unknown): value is EnvironmentName {
  return typeof value === 'string' && (environmentNames as readonly string[]).includes(value);
}

/**
 * Resolve `-c env=<name>` and its settings from the app context. Throws with a message that
 * names the fix, so `cdk synth` without `-c env=dev|prod` fails before building anything.
 */
export function resolveEnvironment(
  envContext: unknown,
  environmentsContext: unknown,
): { name: EnvironmentName; settings: EnvironmentSettings } {
  if (!isEnvironmentName(envContext)) {
    const given = envContext === undefined ? 'nothing' : JSON.stringify(envContext);
    throw new EnvironmentSelectionError(`Pass the target environment with -c env=${environmentNames.join('|')} (got ${given}).`);
  }
  const raw = (environmentsContext as Record<string, unknown> | undefined)?.[envContext];
  if (raw === undefined) {
    throw new EnvironmentSelectionError(`cdk.json has no context.environments.${envContext} block.`);
  }
  const parsed = EnvironmentSettings.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new EnvironmentSelectionError(`cdk.json context.environments.${envContext} is invalid:\n  ${problems.join('\n  ')}`);
  }
  return { name: envContext, settings: parsed.data };
}
