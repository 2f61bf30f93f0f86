/**
 * nhiscan's public entry: what the service (the manifest, the scope check) imports. Nothing else
 * of the engine is imported from outside `layers/nhiscan`.
 */
export { NHI_RULE_IDS, PROVIDER_OF_KIND, catalogue, type NhiRuleId } from './catalogue.ts';
export { NhiScope } from './scope.ts';
export { NHISCAN_VERSION } from './version.ts';
