/**
 * secretscan's public entry (DESIGN §11): what the service may import of the engine, its scope
 * schema and its catalogue. Nothing else of the engine is imported outside layers/secretscan.
 */
export { SecretScanScope } from './scope.ts';
export { CATALOGUE as SECRETSCAN_CATALOGUE } from './catalogue.ts';
export { SCANNER_NAME as SECRETSCAN_NAME } from './version.ts';
