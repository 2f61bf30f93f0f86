import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackStore } from '../../../lib/git/pack-store.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { walkHistory } from '../src/history.ts';
import { serveSyntheticPack, type SyntheticPack } from './synthetic-pack.ts';

/**
 * Issue 33 item 7: per-object state is bounded, and the deadline is looked at inside long
 * synchronous work. Packs of one commit holding 100,000 one-line files (synthetic-pack.ts,
 * written by a child process so this process stays small: a child's peak RSS starts from its
 * parent's at fork). The two-million-object case is bench/secretscan-objects.ts.
 */
const FILES = 100_000;
/** For the walk, ten files to a directory: 10,000 small trees make it long enough (~0.5 s idle) to be cut well inside. */
const WALK_PER_TREE = 10;
const MIB = 1024 * 1024;

let work: string;
let pack: SyntheticPack;
let deep: SyntheticPack;

const writePack = (name: string, perTree: number): SyntheticPack =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', 'layers/secretscan/test/synthetic-pack.ts', join(work, name), String(FILES), String(perTree)],
      {
        encoding: 'utf8',
      },
    ),
  ) as SyntheticPack;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'secretscan-many-'));
  pack = writePack('many.pack', 1000);
  deep = writePack('deep.pack', WALK_PER_TREE);
}, 120_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('secretscan with many tiny objects', () => {
  it('stops the history walk of one huge commit at its deadline, not after it', async () => {
    const store = await PackStore.open(deep.path, {
      cacheBytes: 32 * MIB,
      maxObjectBytes: 64 * MIB,
      signal: new AbortController().signal,
    });
    try {
      const walk = (signal: AbortSignal) =>
        walkHistory({ store, tip: deep.tip, shallow: new Set(), maxCommits: 1, maxBlobs: FILES, signal });
      const started = performance.now();
      expect((await walk(new AbortController().signal)).blobs.size).toBe(FILES);
      const whole = performance.now() - started;

      // Before: the one commit's tree was walked in one synchronous call, so a deadline 20 ms in
      // could not fire before the walk ended, and the walk returned as if complete.
      const cut = performance.now();
      await expect(walk(AbortSignal.timeout(20))).rejects.toMatchObject({ name: 'TimeoutError' });
      const stoppedAfter = performance.now() - cut;
      console.info(
        `walk of ${FILES} files: whole ${whole.toFixed(0)} ms; with a 20 ms deadline stopped after ${stoppedAfter.toFixed(0)} ms`,
      );
      expect(stoppedAfter).toBeLessThan(whole);
    } finally {
      store.close();
    }
  }, 120_000);

  it('scans them through the built CLI in bounded memory', async () => {
    const server = await serveSyntheticPack(pack);
    try {
      const { run, report } = await scanWithEngine('secretscan', server.url, {}, { timeoutSeconds: 100, killAfterMs: 110_000 });
      console.info(`${pack.objects} objects: peak RSS ${(run.maxRssKiB / 1024).toFixed(0)} MiB, wall ${(run.wallMs / 1000).toFixed(1)} s`);
      expect(report.status).toBe('ok');
      expect(report.checks.every((check) => check.status === 'pass')).toBe(true);
      expect(report.checks[0].detail).toMatch(/100000 files/);
      // Before: 359 MiB (a hex-string map of ids, a Map of verdicts, 100,000 strings of `oid\0path` twice, a cache of tiny buffers),
      // then 188–211 MiB alone and 264 MiB once under CI's load (a young generation sized from the
      // host's memory, per-object arrays grown by doubling, a Map of sightings). Now 105–108 MiB,
      // under a load of 8 too (secretscan's manifest bounds the young generation: nodeFlags).
      expect(run.maxRssKiB * 1024).toBeLessThan(160 * MIB);
    } finally {
      await server.close();
    }
  }, 120_000);
});
