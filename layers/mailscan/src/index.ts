/**
 * mailscan's public entry for the service (DESIGN §11): the report the runner parses, the
 * fingerprint it names findings by, and the catalogue docs/findings.md is generated from. The
 * service imports mailscan only through this file and two input rules it shares with the API:
 * `domain-name.ts` (the names the API accepts and stores) and `artifact-inputs.ts` (the checks an
 * uploaded report or message passes before a scan reads it).
 */
export { reportSchema, type Report } from './report.ts';
export { reportFingerprint } from './finding-fingerprint.ts';
export { BUILT_SURFACES, catalogue, type Rule, type Surface } from './catalogue.ts';
