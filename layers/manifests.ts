/**
 * The engines this build carries (DESIGN §11, docs/manifests.md): one manifest per engine folder,
 * one line each. The build, the runners, scope validation, the rule-id registry, the generated
 * docs, the bundle budgets, CI's package list, the README's engine table, the stack's dispatch
 * functions and GET /api/scan-types/ all iterate this list. Data only: the API functions bundle it.
 */
import type { EngineManifest } from '../lib/engine-manifest.ts';
import llmscan from './llmscan/manifest.ts';
import m365scan from './m365scan/manifest.ts';
import mailscan from './mailscan/manifest.ts';
import medscan from './medscan/manifest.ts';
import netscan from './netscan/manifest.ts';
import nhiscan from './nhiscan/manifest.ts';
import secretscan from './secretscan/manifest.ts';
import sbomscan from './sbomscan/manifest.ts';
import tlsscan from './tlsscan/manifest.ts';
import vdiscan from './vdiscan/manifest.ts';
import webscan from './webscan/manifest.ts';

export const MANIFESTS: readonly EngineManifest[] = [
  mailscan,
  tlsscan,
  netscan,
  secretscan,
  sbomscan,
  webscan,
  llmscan,
  m365scan,
  nhiscan,
  medscan,
  vdiscan,
];

/** The manifest of the engine that runs `scanType`, if any. */
export function manifestOfScanType(scanType: string): EngineManifest | undefined {
  return MANIFESTS.find((manifest) => manifest.scanTypes.includes(scanType));
}
