/**
 * tlsscan's public entry: what the service (the runner, the scope check) imports. The scanner
 * itself is the kit's (layers/engine-kit/src/tls/), which netscan and vdiscan use as well.
 */
export { TLS_RULE_IDS, catalogue, type TlsRuleId } from '../../engine-kit/src/tls/catalogue.ts';
export { type TlsTarget, parseTlsTarget, formatTlsTarget } from '../../engine-kit/src/tls/target.ts';
export { TlsScope } from './scope.ts';
export { TLSSCAN_VERSION } from './version.ts';
