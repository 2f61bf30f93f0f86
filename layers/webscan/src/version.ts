export const WEBSCAN_VERSION = '0.1.0';
