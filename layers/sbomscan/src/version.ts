export const SCANNER_NAME = 'sbomscan';
export const SCANNER_VERSION = '0.1.0';
