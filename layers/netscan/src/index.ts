/**
 * netscan's public entry: what the service may import (DESIGN §11) — the scope schema the runner
 * writes, the catalogue, and the port-spec parser the backfill's legacy `ports` text goes through.
 */
export { catalogue, NET_RULES } from './catalogue.ts';
export { NetscanScope, NetscanRequestScope, DEFAULT_RATE, DEFAULT_CONNECT_TIMEOUT_MS } from './scope.ts';
export { parsePortSpec, PortSpecError, type PortSpec } from './ports/port-spec.ts';
export { NETSCAN_VERSION } from './engine.ts';
