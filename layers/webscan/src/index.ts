/**
 * webscan's public entry: its scope schema and catalogue, what the service reads through the
 * manifest. Nothing else of the engine is imported from outside `layers/webscan`.
 */
export { WEB_RULE_IDS, catalogue, type WebRule, type WebRuleId } from './catalogue.ts';
export { WebScope } from './scope.ts';
export { WEBSCAN_VERSION } from './version.ts';
