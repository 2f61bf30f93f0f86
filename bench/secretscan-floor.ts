import { detectSecrets } from '../layers/secretscan/src/detect.ts';

/**
 * The floor of bench/secretscan.ts: `git log -p --format='commit %H' | tsx bench/secretscan-floor.ts [--no-prefilter]`.
 * The same rules as the engine (secretlint's preset and the entropy rule, detectSecrets, with its
 * keyword prefilter unless --no-prefilter) over the patch stream, one call per commit; prints
 * {commits, bytes, matches} as one JSON line.
 */
const prefilter = !process.argv.includes('--no-prefilter');
let commits = 0;
let bytes = 0;
let matches = 0;
let pending = '';

async function scanCommit(text: string): Promise<void> {
  if (text.trim() === '') return;
  commits += 1;
  bytes += Buffer.byteLength(text);
  matches += (await detectSecrets('patch.diff', text, { entropy: true, prefilter })).length;
}

process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin as AsyncIterable<string>) {
  pending += chunk;
  let boundary = pending.indexOf('\ncommit ', 1);
  while (boundary !== -1) {
    await scanCommit(pending.slice(0, boundary + 1));
    pending = pending.slice(boundary + 1);
    boundary = pending.indexOf('\ncommit ', 1);
  }
}
await scanCommit(pending);
process.stdout.write(`${JSON.stringify({ commits, bytes, matches })}\n`);
