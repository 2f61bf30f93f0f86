/**
 * tlsscan's public entry: what the service (the runner, the scope check) and netscan (a TLS scan
 * per open TLS port) import. Nothing else of the engine is imported from outside `layers/tlsscan`.
 */
export { TLS_RULE_IDS, catalogue, type TlsRuleId } from './catalogue.ts';
export { TlsScope } from './scope.ts';
export { TLSSCAN_VERSION } from './version.ts';
export { type TlsTarget, parseTlsTarget, formatTlsTarget } from './target.ts';
export { type StartTls, defaultStartTls } from './starttls.ts';
export { type RuleResult, recordRuleResults } from './rule-results.ts';
export { type TlsEndpointOptions, type TlsEndpointResult, scanTlsEndpoint } from './scan-endpoint.ts';
