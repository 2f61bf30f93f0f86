import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineManifest } from '../../../lib/engine-manifest.ts';
import { MANIFESTS } from '../../../layers/manifests.ts';
import { isScanType } from '../../domain/runner-types.ts';
import type { ScanType } from '../../domain/scan-types.ts';
import type { ArtifactStore } from '../../ports/artifact-store.ts';
import type { ScanRunner } from '../../ports/scan-runner.ts';
import { makeEngineRunner, type EngineMapping, type EngineRunnerOptions } from './engine-runner.ts';
import { snapshotNodeOptions } from './startup-snapshot.ts';

/**
 * How a job becomes an engine's run, from its manifest (docs/manifests.md): the scope as the API
 * validated it and stored it (the scan engine has already taken the backfill's provenance tags
 * off, once for every runner; the engine parses its file again with the same schema), plus the
 * job's scan type under `scanTypeScopeKey` for an engine that runs several (netscan's `mode`: a
 * migrated Continuous Network schedule's legacy `ports` text is netscan's port syntax and passes
 * through as is); its artifact fields, fetched and handed over as local paths; its summary
 * metrics; the `<PREFIX>*` settings and operator keys, narrowed to `operatorKeyPrefixes` where the
 * manifest names them.
 */
export function mappingOf(manifest: EngineManifest): EngineMapping {
  const envPrefix = manifest.settingsPrefix.replace(/_$/, '');
  const scopeKey = manifest.scanTypeScopeKey;
  const keyPrefixes = manifest.operatorKeyPrefixes;
  return {
    engine: manifest.name,
    envPrefix,
    scopeFile: ({ scope, scanType }) => ({ ...scope, ...(scopeKey ? { [scopeKey]: scanType } : {}) }),
    ...(manifest.outputs ? { outputs: manifest.outputs } : {}),
    ...(manifest.artifactFields ? { artifactFields: manifest.artifactFields } : {}),
    ...(manifest.summaryMetrics ? { summaryMetrics: manifest.summaryMetrics } : {}),
    ...(keyPrefixes ? { keyFilter: (name: string) => keyPrefixes.some((prefix) => name.startsWith(prefix)) } : {}),
  };
}

export interface RunnerSettings {
  /** Where the executables are: /opt/bin in the layer, layers/dist/bin locally. */
  binDir: string;
  /** The service's environment: each engine sees its own `<PREFIX>_*` variables. */
  env?: NodeJS.ProcessEnv;
  /** Local only (ALLOW_LOOPBACK_TARGETS=true): engines may scan loopback targets. */
  allowLoopback?: boolean;
  /** The deployment scans private networks (ALLOW_PRIVATE_TARGETS). */
  allowPrivate?: boolean;
  operatorKeys?: () => Promise<Readonly<Record<string, string>>>;
  /** Where the scope's artifacts are fetched from (engines whose manifest names artifact fields). */
  artifacts?: ArtifactStore;
}

/**
 * The one runner for `manifest`'s engine, its executable at `bin`: the child-process runner with
 * the manifest's mapping (docs/engine-contract.md), started from the engine's start-up snapshot
 * where its manifest says it has one. A snapshot made with this node is kept in `snapshotCache`,
 * else `<PREFIX>_SNAPSHOT_CACHE`, else the OS temporary folder (/tmp in Lambda).
 */
export function runnerOf(
  manifest: EngineManifest,
  options: Omit<EngineRunnerOptions, 'mapping' | 'nodeOptions'> & { snapshotCache?: string },
): ScanRunner {
  const { snapshotCache, ...rest } = options;
  const mapping = mappingOf(manifest);
  const env = options.env ?? process.env;
  const cacheDir = snapshotCache ?? (env[`${mapping.envPrefix}_SNAPSHOT_CACHE`] || join(tmpdir(), `${manifest.name}-snapshot`));
  const flags = manifest.nodeFlags ?? [];
  return makeEngineRunner({
    ...rest,
    mapping,
    ...(manifest.startupSnapshot
      ? { nodeOptions: async (node, bin, logger) => [...flags, ...(await snapshotNodeOptions(node, bin, { cacheDir, logger }))] }
      : flags.length > 0
        ? { nodeOptions: () => Promise.resolve([...flags]) }
        : {}),
  });
}

/** One runner per scan type of every engine in layers/manifests.ts: the one runner, each with its manifest. */
export function makeEngineRunners(settings: RunnerSettings): Map<ScanType, ScanRunner> {
  const runners = new Map<ScanType, ScanRunner>();
  for (const manifest of MANIFESTS) {
    const runner = runnerOf(manifest, {
      bin: join(settings.binDir, manifest.name),
      env: settings.env,
      allowLoopback: settings.allowLoopback,
      allowPrivate: settings.allowPrivate,
      operatorKeys: settings.operatorKeys,
      artifacts: settings.artifacts,
    });
    for (const type of manifest.scanTypes) if (isScanType(type)) runners.set(type, runner);
  }
  return runners;
}
