import { ENGINES } from '../../layers/engines.ts';
import { SCAN_TYPES, type ScanType } from './scan-types.ts';

export function isScanType(value: string): value is ScanType {
  return (SCAN_TYPES as readonly string[]).includes(value);
}

/**
 * The scan types this build has an engine for (layers/engines.ts): what the dispatch layer
 * carries, what GET /api/scan-types/ marks `runner_available`, and what the API accepts on create
 * (DESIGN §4). Pure data, so the API functions bundle it without any engine.
 */
export function runnerScanTypes(): ScanType[] {
  return ENGINES.flatMap((engine) => engine.scanTypes.filter(isScanType));
}
