import { Duration, Size } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { constants, accessSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../../shared/config/environment.ts';
import { DEAD_LETTER_CONCURRENCY } from '../environment-settings.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';
import { MANIFESTS } from '../../layers/manifests.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { RESOURCE_CLASSES, targetsAtOnce, type ResourceClass } from '../../shared/domain/resource-class.ts';
import { classVariable } from '../../shared/config/environment.ts';
import type { ClassQueues } from './scheduling.ts';

/**
 * The standard class's dispatch timeout: one scan job per invocation, its targets run as many at a
 * time as fit its memory (docs/resource-classes.md). local/runtime.ts DISPATCH_TIMEOUT_MS is the same 5 minutes.
 */
export const DISPATCH_TIMEOUT = Duration.seconds(RESOURCE_CLASSES.standard.timeoutSeconds);
/** CPU, not memory: Lambda gives CPU in proportion to memory, and the CLI does TLS and X.509 work. */
export const DISPATCH_MEMORY_MB = RESOURCE_CLASSES.standard.memoryMb;
/** Room in /tmp beside the packs: the engines' compile caches, mailscan's start-up snapshot (~9 MB, made once per environment) and anything else a scan writes. */
export const DISPATCH_TMP_HEADROOM_MIB = RESOURCE_CLASSES.standard.tmpBaseMib;

/**
 * A class's dispatch function's /tmp: its base (DESIGN §11: standard 512 MiB, long 4 GiB), plus
 * what the targets of one job may write at once: each of the class's engines runs
 * targetsAtOnce of its targets together, each writing up to its manifest's `tmpMbPerTarget`
 * (secretscan: its repository's pack, up to the pack bound, 384 MiB), so two large repositories of
 * one job never fail each other with a full disk.
 */
export function ephemeralStorageMib(resourceClass: ResourceClass): number {
  const engines = MANIFESTS.filter((manifest) => manifest.resourceClass === resourceClass);
  const packs = engines.map((manifest) => targetsAtOnce(manifest.scanTypes[0], undefined, manifest) * (manifest.tmpMbPerTarget ?? 0));
  return RESOURCE_CLASSES[resourceClass].tmpBaseMib + Math.max(0, ...packs);
}
/** The standard class's /tmp (ephemeralStorageMib). */
export const DISPATCH_EPHEMERAL_STORAGE_MIB = ephemeralStorageMib('standard');
/** A class's dispatch timeout (RESOURCE_CLASSES). */
export function dispatchTimeout(resourceClass: ResourceClass): Duration {
  return Duration.seconds(RESOURCE_CLASSES[resourceClass].timeoutSeconds);
}
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
  /** Each deployed resource class's scan queue and DLQ (Scheduling.classQueues), standard included. */
  classQueues: ReadonlyMap<ResourceClass, ClassQueues>;
  /** The standard scan queue's visibility timeout (cdk.json), checked against its function's timeout. */
  scanQueueVisibilityTimeout: Duration;
  /** Directory whose contents the layer mounts under /opt: bin/<engine>, lib/<engine>/, assets/. */
  enginesLayerPath: string;
  /** Private networks are in scope: the engines may connect to them. */
  allowPrivateTargets: boolean;
  /** Most concurrent dispatch invocations per class (each class queue's event source MaximumConcurrency). */
  maxConcurrency: Readonly<Record<ResourceClass, number>>;
}

/** A non-standard class's queue visibility timeout: VISIBILITY_TIMEOUT_FACTOR x its function's timeout (long: 5,400 s). */
export function classVisibilityTimeout(resourceClass: ResourceClass, standard: Duration): Duration {
  return resourceClass === 'standard' ? standard : Duration.seconds(VISIBILITY_TIMEOUT_FACTOR * dispatchTimeout(resourceClass).toSeconds());
}

/**
 * The scan queues' consumers: one dispatch function per resource class (DESIGN §11: one scan per
 * invocation, the class's memory, timeout and /tmp, the engines' layer, its own queue only), and
 * the dead-letter function that marks jobs and schedules failed once a message has exhausted its
 * receives on any class's queue. The table grants are the stack's: they follow each entry's code path.
 */
export class Dispatch extends Construct {
  /** The standard class's dispatch function (the logical id it always had). */
  readonly dispatchFunction: ServiceFunction;
  /** Every class's dispatch function, standard included. */
  readonly dispatchFunctions: ReadonlyMap<ResourceClass, ServiceFunction>;
  readonly deadLetterFunction: ServiceFunction;
  readonly enginesLayer: LayerVersion;

  constructor(scope: Construct, id: string, props: DispatchProps) {
    super(scope, id);
    // Both checks run before any function is bundled, so a bad setting fails in a second.
    for (const name of props.classQueues.keys()) {
      const visibility = classVisibilityTimeout(name, props.scanQueueVisibilityTimeout);
      checkVisibilityTimeout(name === 'standard' ? 'scan queue' : `${name} scan queue`, visibility, dispatchTimeout(name));
    }
    checkEnginesLayer(props.enginesLayerPath);

    // The directory's contents land in /opt: bin/<engine> at /opt/bin/<engine>. Each CLI is a small
    // launcher with a `#!/usr/bin/env node` shebang (the runtime's node is on PATH) and its bundle.
    this.enginesLayer = new LayerVersion(this, 'EnginesLayer', {
      code: enginesLayerCode(props.enginesLayerPath),
      compatibleRuntimes: [Runtime.NODEJS_24_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: `Scan engines (${MANIFESTS.map((manifest) => `/opt/bin/${manifest.name}`).join(', ')}) and their data files (/opt/assets)`,
    });

    const functions = new Map<ResourceClass, ServiceFunction>();
    for (const [name, { queue }] of props.classQueues) {
      const spec = RESOURCE_CLASSES[name];
      const engines = MANIFESTS.filter((manifest) => manifest.resourceClass === name).map((manifest) => manifest.name);
      const fn = new ServiceFunction(
        this,
        name === 'standard' ? 'DispatchFunction' : `${name.charAt(0).toUpperCase()}${name.slice(1)}DispatchFunction`,
        {
          defaults: props.defaults,
          entry: 'functions/dispatch.ts',
          description: `Scan queue consumer of the ${name} class (${engines.join(', ') || 'no engine'}): turns fires and scan messages into scan jobs and runs them`,
          timeout: dispatchTimeout(name),
          memorySize: spec.memoryMb,
          ephemeralStorage: Size.mebibytes(ephemeralStorageMib(name)),
        },
      )
        .setEnvironment(ENV.enginesDir, ENGINES_DIR)
        .setEnvironment(ENV.allowPrivateTargets, String(props.allowPrivateTargets))
        .setEnvironment(ENV.resourceClass, name);
      fn.handler.addLayers(this.enginesLayer);
      // One record per invocation: each record is a whole scan and gets the whole timeout. The
      // concurrency cap queues the 02:00 burst instead of throttling it (docs/dispatch.md). The
      // event source grants this function its own queue's receive and delete, no other queue's.
      fn.handler.addEventSource(
        new SqsEventSource(queue, {
          batchSize: 1,
          reportBatchItemFailures: true,
          maxConcurrency: props.maxConcurrency[name],
        }),
      );
      functions.set(name, fn);
    }
    this.dispatchFunctions = functions;
    this.dispatchFunction = functions.get('standard')!;

    this.deadLetterFunction = new ServiceFunction(this, 'DeadLetterFunction', {
      defaults: props.defaults,
      entry: 'functions/dispatch-dead-letter.ts',
      description: 'Scan DLQs consumer (every class): marks the job and its schedule failed',
      timeout: DEAD_LETTER_TIMEOUT,
    });
    for (const { deadLetterQueue } of props.classQueues.values()) {
      this.deadLetterFunction.handler.addEventSource(
        new SqsEventSource(deadLetterQueue, {
          batchSize: 10,
          reportBatchItemFailures: true,
          maxConcurrency: DEAD_LETTER_MAX_CONCURRENCY,
        }),
      );
    }
  }

  /**
   * Let `fn` read a scan's log lines back (GET /api/scans/{id}/log/): each class's dispatch log
   * group's name (classVariable of DISPATCH_LOG_GROUP), and logs:FilterLogEvents on those log
   * groups and no other.
   */
  bindLogReader(fn: ServiceFunction): void {
    for (const [name, { logGroup }] of this.dispatchFunctions) {
      fn.setEnvironment(classVariable(ENV.dispatchLogGroup, name), logGroup.logGroupName);
      fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['logs:FilterLogEvents'], resources: [logGroup.logGroupArn] }));
    }
  }
}
