import { Duration, Size } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { constants, accessSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../../shared/config/environment.ts';
import { DEAD_LETTER_CONCURRENCY } from '../environment-settings.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';
import { MANIFESTS } from '../../layers/manifests.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { DEFAULT_TARGET_CONCURRENCY, DISPATCH_TARGET_MEMORY_MB } from '../../shared/services/scan-engine.ts';

/**
 * The dispatch function's timeout: one scan job per invocation, its targets run up to four at a
 * time within it (docs/dispatch.md). local/runtime.ts DISPATCH_TIMEOUT_MS is the same 5 minutes.
 */
export const DISPATCH_TIMEOUT = Duration.minutes(5);
/** CPU, not memory: Lambda gives CPU in proportion to memory, and the CLI does TLS and X.509 work. */
export const DISPATCH_MEMORY_MB = DISPATCH_TARGET_MEMORY_MB;
/** Room in /tmp beside the packs: the engines' compile caches, mailscan's start-up snapshot (~9 MB, made once per environment) and anything else a scan writes. */
export const DISPATCH_TMP_HEADROOM_MIB = 512;
/**
 * The dispatch function's /tmp. A job scans up to DEFAULT_TARGET_CONCURRENCY targets at once, and an
 * engine's scan may write up to its manifest's `tmpMbPerTarget` to /tmp (secretscan: its
 * repository's pack, up to the pack bound, 384 MiB): with Lambda's default 512 MiB, two large
 * repositories of one job would fail each other with a full disk.
 */
export const DISPATCH_EPHEMERAL_STORAGE_MIB =
  DEFAULT_TARGET_CONCURRENCY * Math.max(0, ...MANIFESTS.map((manifest) => manifest.tmpMbPerTarget ?? 0)) + DISPATCH_TMP_HEADROOM_MIB;
/** The SQS event source guidance: a queue's visibility timeout is at least 6x its consumer's timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;
/** A batch of ten dead letters is a few dozen item reads and conditional writes. */
export const DEAD_LETTER_TIMEOUT = Duration.seconds(30);
/** The scan DLQ's visibility timeout, 6x DEAD_LETTER_TIMEOUT for the same reason as the scan queue's. */
export const DEAD_LETTER_VISIBILITY_TIMEOUT = Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * DEAD_LETTER_TIMEOUT.toSeconds());
/** Dead letters are rare and cheap; a cap keeps a flood of them from taking the account's concurrency. */
export const DEAD_LETTER_MAX_CONCURRENCY = DEAD_LETTER_CONCURRENCY;
/** Where the layer mounts the engines' executables: /opt/bin/<engine> (layers/manifests.ts). */
export const ENGINES_DIR = '/opt/bin';
/**
 * Scan types the deployed dispatch function has a runner for: functions/dispatch-composition.ts
 * registers every engine of layers/manifests.ts when ENGINES_DIR is set, which it is here.
 */
export const DEPLOYED_RUNNERS: readonly string[] = runnerScanTypes();

/**
 * The engines layer's content: `layers/dist` without the start-up snapshots' blobs. A blob
 * (docs/mailscan-startup.md) runs only on the exact node binary that built it, and the function
 * runs the managed arm64 runtime's node, never the one `npm run build` used: in the layer it would
 * be ~9 MB that every execution environment probes and rejects. The snapshot's script
 * (`snapshots/mailscan-snapshot.cjs`) ships instead: the mailscan runner makes a blob from it with
 * the runtime's own node, once per execution environment, in /tmp.
 */
export const ENGINES_LAYER_EXCLUDE = ['snapshots/*.blob'];

export function enginesLayerCode(path: string): Code {
  return Code.fromAsset(path, { exclude: ENGINES_LAYER_EXCLUDE });
}

/** The stack cannot be built as configured (settings or a missing build): an operator error. */
export class DispatchSetupError extends Error {
  override readonly name = 'DispatchSetupError';
}

/**
 * Throws unless `visibilityTimeout` is at least 6x `consumerTimeout`, so a message is never handed
 * to a second invocation while the first one may still be working on it, and a throttled
 * invocation can be retried before the message reappears.
 */
export function checkVisibilityTimeout(queue: string, visibilityTimeout: Duration, consumerTimeout: Duration): void {
  const needed = VISIBILITY_TIMEOUT_FACTOR * consumerTimeout.toSeconds();
  if (visibilityTimeout.toSeconds() < needed) {
    throw new DispatchSetupError(
      `The ${queue} visibility timeout is ${visibilityTimeout.toSeconds()} s; it must be at least ${needed} s ` +
        `(${VISIBILITY_TIMEOUT_FACTOR} x the ${consumerTimeout.toSeconds()} s timeout of its consumer).`,
    );
  }
}

/** Throws unless `layerDirectory` holds an executable `bin/<engine>` for every engine, which `npm run build` writes. */
export function checkEnginesLayer(layerDirectory: string): void {
  for (const manifest of MANIFESTS) {
    const executable = join(layerDirectory, 'bin', manifest.name);
    let usable = false;
    try {
      accessSync(executable, constants.X_OK);
      usable = statSync(executable).isFile();
    } catch {
      usable = false;
    }
    if (!usable) {
      throw new DispatchSetupError(
        `The engines layer needs an executable ${executable}. Run \`npm run build\` before \`cdk synth\` or \`cdk deploy\`.`,
      );
    }
  }
}

export interface DispatchProps {
  defaults: ServiceFunctionDefaults;
  scanQueue: IQueue;
  /** The scan queue's visibility timeout, checked against DISPATCH_TIMEOUT. */
  scanQueueVisibilityTimeout: Duration;
  scanDeadLetterQueue: IQueue;
  /** Directory whose contents the layer mounts under /opt: bin/<engine>, lib/<engine>/, assets/. */
  enginesLayerPath: string;
  /** Private networks are in scope: the engines may connect to them. */
  allowPrivateTargets: boolean;
  /** Most concurrent dispatch invocations (scan queue event source MaximumConcurrency). */
  maxConcurrency: number;
}

/**
 * The scan queue's consumers: the dispatch function (one scan per invocation, with the engines'
 * layer) and the dead-letter function that marks jobs and schedules failed once a message has
 * exhausted its receives. The table grants are the stack's: they follow each entry's code path.
 */
export class Dispatch extends Construct {
  readonly dispatchFunction: ServiceFunction;
  readonly deadLetterFunction: ServiceFunction;
  readonly enginesLayer: LayerVersion;

  constructor(scope: Construct, id: string, props: DispatchProps) {
    super(scope, id);
    // Both checks run before any function is bundled, so a bad setting fails in a second.
    checkVisibilityTimeout('scan queue', props.scanQueueVisibilityTimeout, DISPATCH_TIMEOUT);
    checkEnginesLayer(props.enginesLayerPath);

    // The directory's contents land in /opt: bin/<engine> at /opt/bin/<engine>. Each CLI is a small
    // launcher with a `#!/usr/bin/env node` shebang (the runtime's node is on PATH) and its bundle.
    this.enginesLayer = new LayerVersion(this, 'EnginesLayer', {
      code: enginesLayerCode(props.enginesLayerPath),
      compatibleRuntimes: [Runtime.NODEJS_24_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: `Scan engines (${MANIFESTS.map((manifest) => `/opt/bin/${manifest.name}`).join(', ')}) and their data files (/opt/assets)`,
    });

    this.dispatchFunction = new ServiceFunction(this, 'DispatchFunction', {
      defaults: props.defaults,
      entry: 'functions/dispatch.ts',
      description: 'Scan queue consumer: turns fires and scan messages into scan jobs and runs them',
      timeout: DISPATCH_TIMEOUT,
      memorySize: DISPATCH_MEMORY_MB,
      ephemeralStorage: Size.mebibytes(DISPATCH_EPHEMERAL_STORAGE_MIB),
    })
      .setEnvironment(ENV.enginesDir, ENGINES_DIR)
      .setEnvironment(ENV.allowPrivateTargets, String(props.allowPrivateTargets));
    this.dispatchFunction.handler.addLayers(this.enginesLayer);
    // One record per invocation: each record is a whole scan and gets the whole timeout. The
    // concurrency cap queues the 02:00 burst instead of throttling it (docs/dispatch.md).
    this.dispatchFunction.handler.addEventSource(
      new SqsEventSource(props.scanQueue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );

    this.deadLetterFunction = new ServiceFunction(this, 'DeadLetterFunction', {
      defaults: props.defaults,
      entry: 'functions/dispatch-dead-letter.ts',
      description: 'Scan DLQ consumer: marks the job and its schedule failed',
      timeout: DEAD_LETTER_TIMEOUT,
    });
    this.deadLetterFunction.handler.addEventSource(
      new SqsEventSource(props.scanDeadLetterQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: DEAD_LETTER_MAX_CONCURRENCY,
      }),
    );
  }

  /**
   * Let `fn` read a scan's log lines back (GET /api/scans/{id}/log/): the dispatch log group's
   * name, and logs:FilterLogEvents on that log group and no other.
   */
  bindLogReader(fn: ServiceFunction): void {
    const { logGroup } = this.dispatchFunction;
    fn.setEnvironment(ENV.dispatchLogGroup, logGroup.logGroupName);
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['logs:FilterLogEvents'], resources: [logGroup.logGroupArn] }));
  }
}
