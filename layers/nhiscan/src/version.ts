export const NHISCAN_VERSION = '0.1.0';
