import { join } from 'node:path';
import { ENGINES } from '../../../layers/engines.ts';
import { isScanType } from '../../domain/runner-types.ts';
import { withoutLegacyKeys } from '../../domain/scope.ts';
import type { ScanType } from '../../domain/scan-types.ts';
import type { ScanRunner } from '../../ports/scan-runner.ts';
import { makeEngineRunner, type EngineMapping } from './engine-runner.ts';
import { makeMailscanRunner } from './mailscan-runner.ts';

/**
 * What the service knows of each engine beyond layers/engines.ts: how a job's scope becomes the
 * engine's scope file. mailscan predates the kit's frame and keeps a runner of its own; every
 * other engine is the one child-process runner with its mapping (docs/engine-contract.md).
 */
const MAPPINGS: Readonly<Record<string, EngineMapping>> = {
  // The API checked the scope with the engine's schema, and the engine parses its file again: the
  // runner passes it on as stored, without the backfill's provenance tags.
  tlsscan: { engine: 'tlsscan', envPrefix: 'TLSSCAN', scopeFile: ({ scope }) => withoutLegacyKeys(scope) },
  // One engine for two scan types: the job's type becomes the scope's `mode` (vm: OSV lookups of
  // detected versions; vapt: unauthenticated-access probes). A migrated Continuous Network
  // schedule's legacy `ports` text is netscan's port syntax and passes through as is.
  netscan: {
    engine: 'netscan',
    envPrefix: 'NETSCAN',
    scopeFile: ({ scope, scanType }) => ({ ...withoutLegacyKeys(scope), mode: scanType }),
  },
  // The scope as the API validated it (SecretScanScope), without the backfill's provenance tags;
  // the operator's repository tokens, SECRETSCAN_TOKEN_<NAME>, for scope.credential (docs/secretscan.md).
  secretscan: {
    engine: 'secretscan',
    envPrefix: 'SECRETSCAN',
    scopeFile: ({ scope }) => withoutLegacyKeys(scope),
    keyFilter: (name) => name.startsWith('SECRETSCAN_TOKEN_'),
  },
};

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

/** One runner per scan type of every engine in layers/engines.ts. */
export function makeEngineRunners(settings: RunnerSettings): Map<ScanType, ScanRunner> {
  const runners = new Map<ScanType, ScanRunner>();
  for (const engine of ENGINES) {
    const bin = join(settings.binDir, engine.name);
    const mapping = MAPPINGS[engine.name] as EngineMapping | undefined;
    const runner =
      engine.name === 'mailscan'
        ? makeMailscanRunner({ bin, env: settings.env, operatorKeys: settings.operatorKeys })
        : mapping
          ? makeEngineRunner({
              mapping,
              bin,
              env: settings.env,
              allowLoopback: settings.allowLoopback,
              allowPrivate: settings.allowPrivate,
              operatorKeys: settings.operatorKeys,
            })
          : null;
    if (!runner) throw new Error(`engine ${engine.name} has no runner mapping in engine-registry.ts`);
    for (const type of engine.scanTypes) if (isScanType(type)) runners.set(type, runner);
  }
  return runners;
}
