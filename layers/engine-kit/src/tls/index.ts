/**
 * The kit's TLS scanner: one endpoint's protocols, suites, certificate chain, HSTS and Heartbleed,
 * judged against the `tls.*` rules. tlsscan is its CLI; netscan scans each open TLS port with it
 * and vdiscan each RDP port (after the RDP preamble). What needs only the rules or a target's
 * syntax imports catalogue.ts or target.ts itself, so a bundle that validates scopes (the API, the
 * web UI) never carries the scanner.
 */
export { TLS_RULE_IDS, catalogue, type TlsRuleId } from './catalogue.ts';
export { type TlsTarget, parseTlsTarget, formatTlsTarget } from './target.ts';
export { type StartTls, defaultStartTls } from './starttls.ts';
export { type RuleResult, recordRuleResults } from './rule-results.ts';
export { type TlsEndpointOptions, type TlsEndpointResult, scanTlsEndpoint } from './scan-endpoint.ts';
