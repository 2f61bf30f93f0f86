export const LLMSCAN_VERSION = '0.1.0';
