/**
 * m365scan's public entry: its scope schema and catalogue, what the service reads through the
 * manifest. Nothing else of the engine is imported from outside `layers/m365scan`.
 */
export { M365_RULE_IDS, catalogue, type M365Rule, type M365RuleId } from './catalogue.ts';
export { M365Scope } from './scope.ts';
export { M365SCAN_VERSION } from './version.ts';
