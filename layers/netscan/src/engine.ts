/**
 * netscan's definition for the kit's CLI frame (docs/engine-contract.md): its name, catalogue,
 * scope and target rules, and the scan.
 */
import type { EngineDefinition } from '../../engine-kit/src/cli.ts';
import { catalogue } from './catalogue.ts';
import { makeNetscanScan, type NetscanDependencies } from './run-scan.ts';
import { NetscanScope } from './scope.ts';
import { parseTargetSpec, TargetSpecError } from './targets.ts';

export const NETSCAN_VERSION = '0.1.0';

export function netscanDefinition(dependencies: NetscanDependencies = {}): EngineDefinition<NetscanScope> {
  return {
    name: 'netscan',
    version: NETSCAN_VERSION,
    envPrefix: 'NETSCAN',
    targetHelp: 'an IP address, a CIDR block (IPv4 up to a /24, IPv6 up to a /120) or a hostname',
    catalogue: () => catalogue,
    scopeSchema: () => NetscanScope,
    parseTarget: (raw) => {
      try {
        const spec = parseTargetSpec(raw);
        return { ok: true, target: spec.kind === 'host' ? spec.host : (spec.cidr ?? spec.addresses[0]) };
      } catch (error) {
        if (error instanceof TargetSpecError) return { ok: false, message: error.message };
        throw error;
      }
    },
    scan: makeNetscanScan(dependencies),
    defaultTimeoutSeconds: 300,
  };
}
