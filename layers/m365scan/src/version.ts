export const M365SCAN_VERSION = '0.1.0';
