import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

// The launcher turns on Node's compile cache in MAILSCAN_COMPILE_CACHE (docs/mailscan-startup.md):
// a cache it cannot use, or one holding garbage, must only cost speed, never a command.
const scratch = mkdtempSync(join(tmpdir(), 'mailscan-compile-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe('the compile cache', () => {
  it('fills the folder MAILSCAN_COMPILE_CACHE names and answers the same from a warm cache', async () => {
    const cache = join(scratch, 'warm');

    const cold = await runCli(['rules'], { MAILSCAN_COMPILE_CACHE: cache });
    const warm = await runCli(['rules'], { MAILSCAN_COMPILE_CACHE: cache });

    expect(cold.code).toBe(0);
    expect(filesUnder(cache).length).toBeGreaterThan(0);
    expect(warm).toMatchObject({ code: 0, stdout: cold.stdout, stderr: '' });
  });

  it('still runs when the cache folder cannot be created (a file stands in its place)', async () => {
    const blocked = join(scratch, 'blocked');
    writeFileSync(blocked, 'not a folder');

    const run = await runCli(['--version'], { MAILSCAN_COMPILE_CACHE: blocked });

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^mailscan \d+\.\d+\.\d+/);
  });

  it('leaves a folder others may write to unused: a cache entry is code every later process runs', async () => {
    const shared = join(scratch, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);

    const run = await runCli(['rules'], { MAILSCAN_COMPILE_CACHE: shared });
    const leftInShared = filesUnder(shared);
    chmodSync(shared, 0o700);
    const own = await runCli(['rules'], { MAILSCAN_COMPILE_CACHE: shared });

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty('rules');
    expect(leftInShared).toEqual([]);
    // The same folder once it is this user's alone: used.
    expect(own.stdout).toBe(run.stdout);
    expect(filesUnder(shared).length).toBeGreaterThan(0);
  });

  it('still runs when every cached entry is garbage', async () => {
    const cache = join(scratch, 'corrupt');
    await runCli(['rules'], { MAILSCAN_COMPILE_CACHE: cache });
    for (const entry of readdirSync(cache, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) writeFileSync(join(entry.parentPath, entry.name), 'garbage');
    }

    const run = await runCli(['rules'], { MAILSCAN_COMPILE_CACHE: cache });

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty('rules');
  });
});
