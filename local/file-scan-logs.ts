import { appendFileSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scanLogLineOf, type ScanLogLine } from '../shared/domain/scan-log.ts';
import type { Logger } from '../shared/ports/logger.ts';
import type { ScanLogs } from '../shared/ports/scan-log.ts';

/**
 * Scan logs locally: one JSON-lines file per scan under `<dir>/<scan id>.jsonl`, each line
 * carrying tenant, scan_id and schedule_id; every line also goes to the process logger.
 */
export function makeFileScanLogs(dir: string, base: Logger): ScanLogs {
  mkdirSync(dir, { recursive: true });
  const file = (scanId: string) => join(dir, `${scanId}.jsonl`);
  return {
    location: (scanId) => ({ file: file(scanId) }),
    loggerFor(keys) {
      const write = (level: string, message: string, extra: Record<string, unknown>[]) => {
        const line = {
          timestamp: new Date().toISOString(),
          level,
          message,
          ...keys,
          ...(Object.assign({}, ...extra) as Record<string, unknown>),
        };
        appendFileSync(
          file(keys.scan_id),
          `${JSON.stringify(line, (_key, value: unknown) => (value instanceof Error ? value.message : value))}\n`,
        );
      };
      const logger: Logger = {
        debug: (message, ...extra) => write('DEBUG', message, extra),
        info: (message, ...extra) => {
          write('INFO', message, extra);
          base.info(message, keys, ...extra);
        },
        warn: (message, ...extra) => {
          write('WARN', message, extra);
          base.warn(message, keys, ...extra);
        },
        error: (message, ...extra) => {
          write('ERROR', message, extra);
          base.error(message, keys, ...extra);
        },
      };
      return logger;
    },
    async read(tenant, scanId, maxLines) {
      let text: string;
      try {
        text = await readFile(file(scanId), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], truncated: false };
        throw error;
      }
      const lines: ScanLogLine[] = [];
      let truncated = false;
      for (const raw of text.split('\n')) {
        if (raw.trim() === '') continue;
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          continue; // a line cut by a crash mid-write
        }
        const line = scanLogLineOf(entry, tenant, scanId);
        if (line === null) continue;
        if (lines.length === maxLines) {
          truncated = true;
          break;
        }
        lines.push(line);
      }
      return { lines, truncated };
    },
  };
}
