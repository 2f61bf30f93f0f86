/**
 * medscan's definition for the kit's CLI frame (docs/engine-contract.md): its name, catalogue,
 * scope and target rules, and the scan.
 */
import type { EngineDefinition } from '../../engine-kit/src/cli.ts';
import { catalogue } from './catalogue.ts';
import { makeMedscanScan, type MedscanDependencies } from './run-scan.ts';
import { MedscanScope } from './scope.ts';
import { parseMedTarget, TargetSpecError, targetText } from './target.ts';

export const MEDSCAN_VERSION = '0.1.0';

export function medscanDefinition(dependencies: MedscanDependencies = {}): EngineDefinition<MedscanScope> {
  return {
    name: 'medscan',
    version: MEDSCAN_VERSION,
    envPrefix: 'MEDSCAN',
    targetHelp: 'an IP address, a hostname, host:port, or an http(s) URL (FHIR, DICOMweb)',
    catalogue: () => catalogue,
    scopeSchema: () => MedscanScope,
    parseTarget: (raw) => {
      try {
        return { ok: true, target: targetText(parseMedTarget(raw)) };
      } catch (error) {
        if (error instanceof TargetSpecError) return { ok: false, message: error.message };
        throw error;
      }
    },
    scan: makeMedscanScan(dependencies),
    defaultTimeoutSeconds: 120,
  };
}
