import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';
import type { LogItem } from '@aws-lambda-powertools/logger';

/** Keys every line carries that say nothing to a person at the terminal. */
const ENVELOPE = new Set([
  'timestamp',
  'level',
  'message',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
]);

/**
 * Lines a terminal does not show at INFO: machine data (metrics) and the steps inside one scan
 * (a runner's or an engine's `<name> started` / `<name> finished`, artifacts fetched), which stay
 * in that scan's own log (`GET /api/scans/{id}/log/`, the scan page) and in JSON mode. The scan's
 * own `scan started` and `scan finished` stay.
 */
export function quietOnTerminal(message: string): boolean {
  if (message === 'metric' || message === 'artifacts fetched') return true;
  return /^[a-z][a-z0-9_-]* (started|finished)$/.test(message) && !message.startsWith('scan ');
}

export type WriteLine = (line: string, level: 'info' | 'warn' | 'error') => void;

/** One log line as a person reads it: `12:04:31 INFO  scan finished  scan_id=scan_01… status=succeeded`. */
export function formatTerminalLine(attributes: Record<string, unknown>, replacer?: (key: string, value: unknown) => unknown): string {
  const time = typeof attributes.timestamp === 'string' ? attributes.timestamp.slice(11, 19) : '';
  const level = (typeof attributes.level === 'string' ? attributes.level : 'INFO').padEnd(5);
  const fields = Object.entries(attributes)
    .filter(([key, value]) => !ENVELOPE.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value, replacer)}`);
  return [time, level, typeof attributes.message === 'string' ? attributes.message : '', ...(fields.length ? [' ' + fields.join(' ')] : [])]
    .join(' ')
    .trimStart();
}

function fieldText(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value, replacer as (key: string, value: unknown) => unknown) ?? String(value);
}

/**
 * The Powertools logger with a person's format for `npm start` on a terminal: one short line per
 * entry, metrics and per-scan steps left out at INFO (`LOG_LEVEL=DEBUG` shows them). The entries,
 * their keys and the levels are the JSON logger's; only the printing differs.
 */
export class TerminalLogger extends Logger {
  readonly #write: WriteLine;

  constructor(options: ConstructorOptions & { write?: WriteLine } = {}) {
    const { write, ...rest } = options;
    super(rest);
    this.#write =
      write ??
      ((line, level) => {
        (level === 'info' ? process.stdout : process.stderr).write(`${line}\n`);
      });
  }

  protected override createLogger(options?: ConstructorOptions): Logger {
    return new TerminalLogger({ ...options, write: this.#write });
  }

  protected override printLog(logLevel: number, log: LogItem): void {
    const attributes: Record<string, unknown> = log.getAttributes();
    if (logLevel <= LogLevelThreshold.INFO && this.getLevelName() !== 'DEBUG' && this.getLevelName() !== 'TRACE') {
      if (typeof attributes.message === 'string' && quietOnTerminal(attributes.message)) return;
    }
    const level = logLevel >= LogLevelThreshold.ERROR ? 'error' : logLevel >= LogLevelThreshold.WARN ? 'warn' : 'info';
    this.#write(formatTerminalLine(attributes, this.getJsonReplacer()), level);
  }
}

/** JSON unless stdout is a terminal; `LOG_FORMAT=json` or `pretty` decides explicitly. */
export function wantsPrettyLogs(env: NodeJS.ProcessEnv, stdoutIsTty: boolean): boolean {
  if (env.LOG_FORMAT === 'json') return false;
  if (env.LOG_FORMAT === 'pretty') return true;
  return stdoutIsTty;
}
