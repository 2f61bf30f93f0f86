import { Duration, type RemovalPolicy, type Size } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import type { ENV } from '../../shared/config/environment.ts';
import { LAMBDA_BUNDLE } from '../bundling/lambda-bundle.ts';
import { repositoryRoot } from '../paths.ts';

/** A variable name from shared/config/environment.ts: the only names our handlers read. */
export type ServiceEnvName = (typeof ENV)[keyof typeof ENV] | `${(typeof ENV)[keyof typeof ENV]}_${string}`;

/** Settings every function of one environment shares. */
export interface ServiceFunctionDefaults {
  /** Powertools `service` key on every log line. */
  serviceName: string;
  logLevel: string;
  logRetention: RetentionDays;
  /** What happens to the log group when the stack is deleted. */
  removalPolicy: RemovalPolicy;
}

export interface ServiceFunctionProps {
  defaults: ServiceFunctionDefaults;
  /** Entry file relative to the repository root, e.g. `functions/api/schedules.ts`; it exports `handler`. */
  entry: string;
  description: string;
  /** Defaults to 10 s: an HTTP API integration gives up after 30 s anyway. */
  timeout?: Duration;
  /** Defaults to 512 MB (ARM: more memory also means more CPU for cold start). */
  memorySize?: number;
  /** The function's /tmp; Lambda's default (512 MiB) when unset. */
  ephemeralStorage?: Size;
  /**
   * Files written beside the bundle at build time: name → a script (repository-relative) that the
   * Node running the synth calls with the file's path, e.g. MetaFunction's `openapi.json`.
   */
  buildFiles?: Record<string, string>;
}

/**
 * The one way this service builds a Lambda function: Node.js 24 on ARM64, an ESM bundle made with
 * the local esbuild (never Docker), minified with source maps, its own log group with the
 * environment's retention, and an execution role that starts with nothing but writing to that
 * log group. Every other permission is granted explicitly by the construct that owns the resource.
 */
export class ServiceFunction extends Construct {
  readonly handler: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { defaults } = props;

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: defaults.logRetention,
      removalPolicy: defaults.removalPolicy,
    });

    // Our own role instead of the default one: the default attaches AWSLambdaBasicExecutionRole,
    // whose log permissions are on Resource "*". Here the function may only write its own log group.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`${this.logGroup.logGroupArn}`],
      }),
    );

    this.handler = new NodejsFunction(this, 'Function', {
      entry: join(repositoryRoot, props.entry),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: join(repositoryRoot, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.ephemeralStorage ? { ephemeralStorageSize: props.ephemeralStorage } : {}),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: defaults.serviceName,
        LOG_LEVEL: defaults.logLevel,
      },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        ...LAMBDA_BUNDLE,
        // After bundling, by the Node running the synth: the map keeps only the mappings into our
        // own sources, named relative to the repository (docs/cold-start.md); then the function's
        // buildFiles are written beside the bundle.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) =>
            [
              [process.execPath, join(inputDir, 'infra/bundling/trim-source-map.ts'), join(outputDir, 'index.mjs.map'), inputDir],
              ...Object.entries(props.buildFiles ?? {}).map(([name, script]) => [
                process.execPath,
                join(inputDir, script),
                join(outputDir, name),
              ]),
            ].map((command) => command.map((arg) => JSON.stringify(arg)).join(' ')),
        },
      },
    });
  }

  /** Set one of the service's environment variables (names from shared/config/environment.ts). */
  setEnvironment(name: ServiceEnvName, value: string): this {
    this.handler.addEnvironment(name, value);
    return this;
  }

  /**
   * Let this function put messages on `queue`: its URL in `urlName` and sqs:SendMessage on that
   * queue only. Not `grantSendMessages`, which adds GetQueueAttributes and GetQueueUrl that the
   * adapters never call. The queues use SQS-managed keys: no KMS grant.
   */
  sendsTo(queue: IQueue, urlName: ServiceEnvName): this {
    this.setEnvironment(urlName, queue.queueUrl);
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    return this;
  }
}
