/**
 * The scan engines this build carries (DESIGN §11), as data: the layer build (layers/build.ts),
 * the runners (shared/adapters/runners/engine-registry.ts), the scan types the API accepts
 * (DESIGN §4: a type without a runner is refused), the stack's runner list and layer check
 * (infra/) and `npm start` all read it, so an engine is added here once. Pure data: the API
 * functions bundle it. Scan types are DESIGN §4's wire values.
 */
export interface EngineEntry {
  /** The executable's name: /opt/bin/<name> in the layer. */
  name: string;
  /** The scan types it runs. */
  scanTypes: readonly string[];
}

export const ENGINES: readonly EngineEntry[] = [
  { name: 'mailscan', scanTypes: ['email_security'] },
  { name: 'tlsscan', scanTypes: ['ssl'] },
  { name: 'netscan', scanTypes: ['vm', 'vapt'] },
  { name: 'secretscan', scanTypes: ['secret_scan'] },
];
