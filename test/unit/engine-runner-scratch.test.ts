import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEngineRunner } from '../../shared/adapters/runners/engine-runner.ts';
import { silentLogger } from '../fakes/silent-logger.ts';

/**
 * Issue 33 item 7, leftovers: the runner gives each engine run a temporary folder it owns
 * (`<PREFIX>_TMPDIR`) and removes it whatever happens: a report, or a run its timeout stopped. The
 * engine here is a real process that writes a "fetched pack" there, then either reports or hangs.
 */
let work: string;
let engine: string;
const REPORT = {
  scanner: { name: 'fakescan', version: '0' },
  target: 't',
  started_at: new Date(0).toISOString(),
  finished_at: new Date(0).toISOString(),
  status: 'ok',
  checks: [],
  findings: [],
  errors: [],
};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'runner-scratch-'));
  engine = join(work, 'fakescan.mjs');
  await writeFile(
    engine,
    [
      "import { writeFileSync } from 'node:fs';",
      "import { join } from 'node:path';",
      'const dir = process.env.FAKESCAN_TMPDIR;',
      "writeFileSync(join(dir, 'fetched.pack'), 'token');",
      `writeFileSync(${JSON.stringify(join(work, 'scratch-was'))}, dir);`,
      `if (process.env.FAKESCAN_HANG === '1') setInterval(() => {}, 1000); else process.stdout.write(${JSON.stringify(JSON.stringify(REPORT))});`,
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function runner(hang: boolean) {
  return makeEngineRunner({
    mapping: { engine: 'fakescan', envPrefix: 'FAKESCAN', scopeFile: () => ({}) },
    bin: engine,
    env: { FAKESCAN_HANG: hang ? '1' : '0' },
  });
}

const input = (timeoutMs: number) => ({
  tenant: 'acme',
  scanType: 'ssl' as const,
  target: 't',
  scope: {},
  signal: new AbortController().signal,
  timeoutMs,
  logger: silentLogger,
});

describe("the engine runner's temporary folder", () => {
  it('removes the folder it gave the engine after a report', async () => {
    await runner(false).run(input(30_000));
    const scratch = await readFile(join(work, 'scratch-was'), 'utf8');
    await expect(stat(scratch)).rejects.toThrow(/ENOENT/);
  });

  it('removes it after a run its timeout stopped', async () => {
    await expect(runner(true).run(input(1_500))).rejects.toThrow(/overran|stopped/);
    const scratch = await readFile(join(work, 'scratch-was'), 'utf8');
    await expect(stat(scratch)).rejects.toThrow(/ENOENT/);
  });
});
