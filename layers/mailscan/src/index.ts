/**
 * mailscan's public entry (DESIGN §11): the report the CLI prints, the fingerprint it names
 * findings by, and the catalogue. The service reads mailscan only through its manifest and the
 * one runner; the upload checks it shares with the API are in lib/mail-artifacts/.
 */
export { reportSchema, type Report } from './report.ts';
export { reportFingerprint } from './finding-fingerprint.ts';
export { BUILT_SURFACES, catalogue, type Rule, type Surface } from './catalogue.ts';
