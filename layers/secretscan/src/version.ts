/** The engine's identity, printed by --version and carried in every report. */
export const SCANNER_NAME = 'secretscan';
export const SCANNER_VERSION = '0.1.0';
