import { App, Duration, Stack } from 'aws-cdk-lib';
import { LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEAD_LETTER_TIMEOUT,
  DISPATCH_EPHEMERAL_STORAGE_MIB,
  DISPATCH_TIMEOUT,
  DispatchSetupError,
  ENGINES_DIR,
  checkEnginesLayer,
  checkVisibilityTimeout,
  enginesLayerCode,
} from '../../infra/constructs/dispatch.ts';
import { addScanServiceStack } from '../../infra/scan-service-app.ts';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import { MANIFESTS as ENGINES } from '../../layers/manifests.ts';
import { ENV } from '../../shared/config/environment.ts';
import { DEFAULT_TARGET_CONCURRENCY } from '../../shared/services/scan-engine.ts';
import { DEFAULT_BOUNDS as SECRETSCAN_BOUNDS } from '../../layers/secretscan/src/bounds.ts';
import { DISPATCH_TIMEOUT_MS } from '../../local/runtime.ts';
import {
  arnOf,
  cdkContext,
  environments,
  fixtureLayer,
  functionResource,
  logicalId,
  synthesizedStack,
  type Json,
} from './synthesized-stack.ts';

describe('dispatch setup checks', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'infra-layer-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** A stack for `env=dev` with `changes` applied to its settings; fails before any bundling. */
  function buildDev(changes: Record<string, unknown>, enginesLayerPath = fixtureLayer): ScanServiceStack {
    const environments = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, ...changes } };
    return addScanServiceStack(new App({ context: { ...cdkContext, environments, env: 'dev' } }), { enginesLayerPath });
  }

  it('keeps the dispatch timeout equal to the one the local runtime assumes', () => {
    expect(DISPATCH_TIMEOUT.toMilliseconds()).toBe(DISPATCH_TIMEOUT_MS);
  });

  it('accepts a visibility timeout of exactly 6x the consumer timeout and refuses one second less', () => {
    expect(() => checkVisibilityTimeout('scan queue', Duration.seconds(1800), Duration.minutes(5))).not.toThrow();
    expect(() => checkVisibilityTimeout('scan queue', Duration.seconds(1799), Duration.minutes(5))).toThrow(
      /scan queue visibility timeout is 1799 s; it must be at least 1800 s/,
    );
  });

  it('refuses to build a stack whose scan queue visibility is under 6x the dispatch timeout', () => {
    const scanQueue = { ...cdkContext.environments.dev.scanQueue, visibilityTimeoutSeconds: 900 };
    expect(() => buildDev({ scanQueue })).toThrow(DispatchSetupError);
    expect(() => buildDev({ scanQueue })).toThrow(/at least 1800 s/);
  });

  it('refuses to build without an engine and says to run npm run build', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expect(() => buildDev({}, empty)).toThrow(DispatchSetupError);
    expect(() => buildDev({}, empty)).toThrow(/bin\/mailscan\. Run `npm run build` before `cdk synth` or `cdk deploy`/);
  });

  it('refuses an engine that is not executable, whichever engine it is', () => {
    for (const engine of ENGINES) {
      const layer = join(scratch, `not-executable-${engine.name}`);
      mkdirSync(join(layer, 'bin'), { recursive: true });
      for (const other of ENGINES) {
        writeFileSync(join(layer, 'bin', other.name), '#!/bin/sh\n');
        chmodSync(join(layer, 'bin', other.name), other === engine ? 0o644 : 0o755);
      }
      expect(() => checkEnginesLayer(layer)).toThrow(new RegExp(`bin/${engine.name}\\. Run`));
    }
  });

  it("leaves the start-up snapshots' blobs out of the layer and ships their script: a blob runs only on the node that built it", () => {
    const layer = join(scratch, 'with-snapshot');
    cpSync(fixtureLayer, layer, { recursive: true });
    mkdirSync(join(layer, 'snapshots'));
    writeFileSync(join(layer, 'snapshots', 'mailscan.blob'), 'blob');
    writeFileSync(join(layer, 'snapshots', 'mailscan-snapshot.cjs'), 'script');
    const outdir = join(scratch, 'cdk.out-snapshot');
    const app = new App({ outdir });
    new LayerVersion(new Stack(app, 'Layer'), 'Engines', { code: enginesLayerCode(layer) });
    app.synth();
    const staged = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(staged).toHaveLength(1);
    expect(existsSync(join(outdir, staged[0], 'bin'))).toBe(true);
    expect(readdirSync(join(outdir, staged[0], 'snapshots'))).toEqual(['mailscan-snapshot.cjs']);
  });

  it('accepts the test fixture layer', () => {
    expect(() => checkEnginesLayer(fixtureLayer)).not.toThrow();
  });
});

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const { stack, template } = synthesizedStack(env);

  describe('dispatch function', () => {
    it('sizes the dispatch function for one scan per invocation: 1024 MB, 5 minutes', () => {
      const dispatch = functionResource(env, 'dispatch').Properties;
      expect(dispatch.MemorySize).toBe(1024);
      expect(dispatch.Timeout).toBe(DISPATCH_TIMEOUT.toSeconds());
      expect(dispatch.Timeout).toBe(300);
      expect(functionResource(env, 'dispatchDeadLetter').Properties.Timeout).toBe(DEAD_LETTER_TIMEOUT.toSeconds());
    });

    it('gives /tmp room for a full pack of every target a job scans at once, and more', () => {
      const tmp = functionResource(env, 'dispatch').Properties.EphemeralStorage as { Size: number };
      expect(tmp.Size).toBe(DISPATCH_EPHEMERAL_STORAGE_MIB);
      expect(tmp.Size).toBe(2048);
      expect(tmp.Size * 1024 * 1024).toBeGreaterThan(DEFAULT_TARGET_CONCURRENCY * SECRETSCAN_BOUNDS.maxPackBytes);
      // The other functions write nothing to /tmp: Lambda's default.
      expect(functionResource(env, 'dispatchDeadLetter').Properties.EphemeralStorage).toBeUndefined();
    });

    it('attaches the engines layer to the dispatch function only, with ENGINES_DIR at its mount point', () => {
      const layerId = logicalId(stack, stack.dispatch.enginesLayer);
      template.hasResourceProperties('AWS::Lambda::LayerVersion', {
        CompatibleRuntimes: ['nodejs24.x'],
        CompatibleArchitectures: ['arm64'],
      });
      template.resourceCountIs('AWS::Lambda::LayerVersion', 1);
      const dispatch = functionResource(env, 'dispatch').Properties;
      expect(dispatch.Layers).toEqual([{ Ref: layerId }]);
      expect(dispatch.Environment.Variables[ENV.enginesDir]).toBe(ENGINES_DIR);
      expect(ENGINES_DIR).toBe('/opt/bin');
      expect(dispatch.Environment.Variables[ENV.allowPrivateTargets]).toBe(String(settings.allowPrivateTargets));
      const withLayers = Object.entries<Json>(template.findResources('AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Layers);
      // Every resource class's dispatch function (docs/resource-classes.md), and nothing else.
      expect(withLayers.map(([id]) => id).sort()).toEqual(
        [...stack.dispatch.dispatchFunctions.values()].map((fn) => logicalId(stack, fn.handler)).sort(),
      );
    });
  });

  describe('queue consumers', () => {
    function mappingsOf(fn: keyof ScanServiceStack['functions']): Json[] {
      return Object.values<Json>(template.findResources('AWS::Lambda::EventSourceMapping'))
        .filter((mapping) => mapping.Properties.FunctionName.Ref === logicalId(stack, stack.functions[fn]!.handler))
        .map((mapping) => mapping.Properties);
    }
    function mappingOf(fn: keyof ScanServiceStack['functions']): Json {
      const mappings = mappingsOf(fn);
      expect(mappings, fn).toHaveLength(1);
      return mappings[0];
    }
    const classes = [...stack.scheduling.classQueues.keys()];

    it('has exactly the event source mappings of each class (its scan queue, its scan DLQ) and the notification queue', () => {
      expect(classes).toEqual(['standard', 'long']);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2 * classes.length + 1);
    });

    it(`feeds dispatch one scan at a time, reports item failures, and caps concurrency at ${settings.dispatch.maxConcurrency}`, () => {
      expect(mappingOf('dispatch')).toMatchObject({
        EventSourceArn: arnOf(stack, stack.scheduling.scanQueue),
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: settings.dispatch.maxConcurrency },
      });
      expect(mappingOf('dispatch').MaximumBatchingWindowInSeconds).toBeUndefined();
    });

    it("feeds the dead-letter function every class's scan DLQ ten at a time with item failures reported", () => {
      const mappings = mappingsOf('dispatchDeadLetter');
      expect(mappings.map((mapping) => mapping.EventSourceArn)).toEqual(
        [...stack.scheduling.classQueues.values()].map(({ deadLetterQueue }) => arnOf(stack, deadLetterQueue)),
      );
      for (const mapping of mappings) expect(mapping).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    });

    it('leaves the scheduler DLQ without a consumer, for an operator to inspect and resend', () => {
      const sources = Object.values<Json>(template.findResources('AWS::Lambda::EventSourceMapping')).map(
        (m) => m.Properties.EventSourceArn,
      );
      expect(sources).not.toContainEqual(arnOf(stack, stack.scheduling.schedulerDeadLetterQueue));
    });
  });
});
