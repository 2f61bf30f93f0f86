import { Duration } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { constants, accessSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../../shared/config/environment.ts';
import { DEAD_LETTER_CONCURRENCY } from '../environment-settings.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';

/**
 * The dispatch function's timeout: one scan job per invocation, its targets run up to four at a
 * time within it (docs/dispatch.md). local/runtime.ts DISPATCH_TIMEOUT_MS is the same 5 minutes.
 */
export const DISPATCH_TIMEOUT = Duration.minutes(5);
/** CPU, not memory: Lambda gives CPU in proportion to memory, and the CLI does TLS and X.509 work. */
export const DISPATCH_MEMORY_MB = 1024;
/** The SQS event source guidance: a queue's visibility timeout is at least 6x its consumer's timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;
/** A batch of ten dead letters is a few dozen item reads and conditional writes. */
export const DEAD_LETTER_TIMEOUT = Duration.seconds(30);
/** The scan DLQ's visibility timeout, 6x DEAD_LETTER_TIMEOUT for the same reason as the scan queue's. */
export const DEAD_LETTER_VISIBILITY_TIMEOUT = Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * DEAD_LETTER_TIMEOUT.toSeconds());
/** Dead letters are rare and cheap; a cap keeps a flood of them from taking the account's concurrency. */
export const DEAD_LETTER_MAX_CONCURRENCY = DEAD_LETTER_CONCURRENCY;
/** Where the layer's `bin/mailscan` is mounted. */
export const MAILSCAN_BIN = '/opt/bin/mailscan';
/**
 * Scan types the deployed dispatch function has a runner for: functions/dispatch-composition.ts
 * registers email_security when MAILSCAN_BIN is set, which it is here.
 */
export const DEPLOYED_RUNNERS = ['email_security'] as const;

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

/** Throws unless `layerDirectory` holds an executable `bin/mailscan`, which `npm run build` writes. */
export function checkMailscanLayer(layerDirectory: string): void {
  const executable = join(layerDirectory, 'bin', 'mailscan');
  let usable = false;
  try {
    accessSync(executable, constants.X_OK);
    usable = statSync(executable).isFile();
  } catch {
    usable = false;
  }
  if (!usable) {
    throw new DispatchSetupError(
      `The mailscan layer needs an executable ${executable}. Run \`npm run build\` before \`cdk synth\` or \`cdk deploy\`.`,
    );
  }
}

export interface DispatchProps {
  defaults: ServiceFunctionDefaults;
  scanQueue: IQueue;
  /** The scan queue's visibility timeout, checked against DISPATCH_TIMEOUT. */
  scanQueueVisibilityTimeout: Duration;
  scanDeadLetterQueue: IQueue;
  /** Directory whose contents the layer mounts under /opt: bin/mailscan (and its assets/). */
  mailscanLayerPath: string;
  /** Most concurrent dispatch invocations (scan queue event source MaximumConcurrency). */
  maxConcurrency: number;
}

/**
 * The scan queue's consumers: the dispatch function (one scan per invocation, with the mailscan
 * layer) and the dead-letter function that marks jobs and schedules failed once a message has
 * exhausted its receives. The table grants are the stack's: they follow each entry's code path.
 */
export class Dispatch extends Construct {
  readonly dispatchFunction: ServiceFunction;
  readonly deadLetterFunction: ServiceFunction;
  readonly mailscanLayer: LayerVersion;

  constructor(scope: Construct, id: string, props: DispatchProps) {
    super(scope, id);
    // Both checks run before any function is bundled, so a bad setting fails in a second.
    checkVisibilityTimeout('scan queue', props.scanQueueVisibilityTimeout, DISPATCH_TIMEOUT);
    checkMailscanLayer(props.mailscanLayerPath);

    // The directory's contents land in /opt: bin/mailscan at /opt/bin/mailscan. The CLI is one
    // JavaScript file with a `#!/usr/bin/env node` shebang; the runtime's node is on PATH.
    this.mailscanLayer = new LayerVersion(this, 'MailscanLayer', {
      code: Code.fromAsset(props.mailscanLayerPath),
      compatibleRuntimes: [Runtime.NODEJS_24_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: 'mailscan CLI (/opt/bin/mailscan) and its data files (/opt/assets)',
    });

    this.dispatchFunction = new ServiceFunction(this, 'DispatchFunction', {
      defaults: props.defaults,
      entry: 'functions/dispatch.ts',
      description: 'Scan queue consumer: turns fires and scan messages into scan jobs and runs them',
      timeout: DISPATCH_TIMEOUT,
      memorySize: DISPATCH_MEMORY_MB,
    }).setEnvironment(ENV.mailscanBin, MAILSCAN_BIN);
    this.dispatchFunction.handler.addLayers(this.mailscanLayer);
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
}
