import { MANIFESTS } from '../../layers/manifests.ts';
import { SCAN_TYPES, type ScanType } from './scan-types.ts';

export function isScanType(value: string): value is ScanType {
  return (SCAN_TYPES as readonly string[]).includes(value);
}

/**
 * The scan types this build has an engine for (layers/manifests.ts): what the dispatch layer
 * carries, what GET /api/scan-types/ marks `runner_available`, and what the API accepts on create
 * (DESIGN §4). Data only, so the API functions bundle it without any engine's scanning code.
 */
export function runnerScanTypes(): ScanType[] {
  return MANIFESTS.flatMap((manifest) => manifest.scanTypes.filter(isScanType));
}
