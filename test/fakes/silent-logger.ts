import type { Logger } from '../../shared/ports/logger.ts';

/** A Logger that drops every line: for tests and benchmarks that assert on behaviour, not logs. */
export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
