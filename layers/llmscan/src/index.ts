/**
 * llmscan's public entry: what the service (the manifest, the scope check) imports. Nothing else
 * of the engine is imported from outside `layers/llmscan`.
 */
export { LLM_RULE_IDS, FAMILIES, OWASP_BY_RULE, OWASP_LLM, catalogue, type LlmRuleId } from './catalogue.ts';
export { LlmScope } from './scope.ts';
export { LLMSCAN_VERSION } from './version.ts';
