import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a CommonJS hook into `dir` for `node --require HOOK`: when the process exits it writes
 * `{"maxRssKiB", "cpuMs"}` (process.resourceUsage: peak RSS, user + system CPU time) to the file
 * named by PEAK_RSS_FILE, so a test or benchmark can measure what an input costs the real CLI.
 * CPU time, unlike wall time, does not grow with the machine's load.
 */
export function writePeakRssHook(dir: string): string {
  const path = join(dir, 'peak-rss-hook.cjs');
  writeFileSync(
    path,
    [
      "const { writeFileSync } = require('node:fs');",
      "process.on('exit', () => {",
      '  if (!process.env.PEAK_RSS_FILE) return;',
      '  const usage = process.resourceUsage();',
      '  writeFileSync(process.env.PEAK_RSS_FILE, JSON.stringify({ maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));',
      '});',
    ].join('\n'),
  );
  return path;
}
