/**
 * vdiscan's public entry: what the service imports (through the manifest) and nothing more.
 */
export { catalogue, VDI_RULES } from './catalogue.ts';
export { VdiScope } from './scope.ts';
export { VDISCAN_VERSION } from './engine.ts';
