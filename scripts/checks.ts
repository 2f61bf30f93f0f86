/**
 * `npm test`'s static checks (typecheck, lint, format check, import cycles), all at once: each is
 * one process that mostly keeps one core busy, and run one after the other they took about a
 * minute of the suite's time on a 2-core machine (lint alone 40 s). Each check's output is printed
 * whole when it ends, in a block under its name; the script fails if any check failed, and names them.
 */
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check', 'check:cycles'];

function run(script: string): Promise<{ script: string; code: number; output: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ script, code: code ?? 1, output, seconds: (performance.now() - started) / 1000 }));
  });
}

const results = await Promise.all(
  CHECKS.map(async (script) => {
    const result = await run(script);
    process.stdout.write(
      `== ${script}: ${result.code === 0 ? 'ok' : `failed (exit ${result.code})`} in ${result.seconds.toFixed(1)} s\n${result.output}`,
    );
    return result;
  }),
);
const failed = results.filter((result) => result.code !== 0).map((result) => result.script);
if (failed.length > 0) {
  process.stderr.write(`checks failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
