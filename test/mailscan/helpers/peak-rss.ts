import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a CommonJS hook into `dir` for `node --require HOOK`: when the process exits it writes its
 * peak RSS (KiB, from process.resourceUsage) to the file named by PEAK_RSS_FILE, so a test or
 * benchmark can measure what an input costs the real CLI.
 */
export function writePeakRssHook(dir: string): string {
  const path = join(dir, 'peak-rss-hook.cjs');
  writeFileSync(path, [
    "const { writeFileSync } = require('node:fs');",
    "process.on('exit', () => { if (process.env.PEAK_RSS_FILE) writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)); });",
  ].join('\n'));
  return path;
}
