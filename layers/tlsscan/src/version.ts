export const TLSSCAN_VERSION = '0.1.0';
