/** medscan's public entry: what the service may import (DESIGN §11): the scope schema and the catalogue. */
export { catalogue, MED_RULES } from './catalogue.ts';
export { MedscanScope } from './scope.ts';
export { MEDSCAN_VERSION } from './engine.ts';
