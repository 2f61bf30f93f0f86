import { join } from 'node:path';
import type { EngineManifest } from '../../../lib/engine-manifest.ts';
import { MANIFESTS } from '../../../layers/manifests.ts';
import { isScanType } from '../../domain/runner-types.ts';
import { withoutLegacyKeys } from '../../domain/scope.ts';
import type { ScanType } from '../../domain/scan-types.ts';
import type { ScanRunner } from '../../ports/scan-runner.ts';
import { makeEngineRunner, type EngineMapping } from './engine-runner.ts';
import { makeMailscanRunner } from './mailscan-runner.ts';

/**
 * How a job becomes an engine's run, from its manifest (docs/manifests.md): the scope as the API
 * validated it and stored it, without the backfill's provenance tags (the engine parses its file
 * again with the same schema), plus the job's scan type under `scanTypeScopeKey` for an engine
 * that runs several (netscan's `mode`: a migrated Continuous Network schedule's legacy `ports`
 * text is netscan's port syntax and passes through as is); the `<PREFIX>*` settings and operator
 * keys, narrowed to `operatorKeyPrefixes` where the manifest names them.
 */
export function mappingOf(manifest: EngineManifest): EngineMapping {
  const envPrefix = manifest.settingsPrefix.replace(/_$/, '');
  const scopeKey = manifest.scanTypeScopeKey;
  const keyPrefixes = manifest.operatorKeyPrefixes;
  return {
    engine: manifest.name,
    envPrefix,
    scopeFile: ({ scope, scanType }) => ({ ...withoutLegacyKeys(scope), ...(scopeKey ? { [scopeKey]: scanType } : {}) }),
    ...(manifest.outputs ? { outputs: manifest.outputs } : {}),
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
}

/**
 * One runner per scan type of every engine in layers/manifests.ts. mailscan predates the kit's
 * frame and keeps a runner of its own (issue 32 moves it onto the one runner); every other engine
 * is the one child-process runner with its manifest's mapping (docs/engine-contract.md).
 */
export function makeEngineRunners(settings: RunnerSettings): Map<ScanType, ScanRunner> {
  const runners = new Map<ScanType, ScanRunner>();
  for (const manifest of MANIFESTS) {
    const bin = join(settings.binDir, manifest.name);
    const runner =
      manifest.name === 'mailscan'
        ? makeMailscanRunner({ bin, env: settings.env, operatorKeys: settings.operatorKeys })
        : makeEngineRunner({
            mapping: mappingOf(manifest),
            bin,
            env: settings.env,
            allowLoopback: settings.allowLoopback,
            allowPrivate: settings.allowPrivate,
            operatorKeys: settings.operatorKeys,
          });
    for (const type of manifest.scanTypes) if (isScanType(type)) runners.set(type, runner);
  }
  return runners;
}
