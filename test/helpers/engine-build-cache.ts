import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { repositoryRoot } from '../../infra/paths.ts';
import { buildEngineOf } from '../../layers/build.ts';

const CACHE = join(repositoryRoot, 'node_modules', '.cache', 'engine-builds');
/** What an engine build reads: every engine's sources (they import the engine kit and lib/) and the locked packages. */
const INPUTS = [join(repositoryRoot, 'layers'), join(repositoryRoot, 'lib'), join(repositoryRoot, 'package-lock.json')];
// An engine's tests (layers/<engine>/test/) are no input of its build: editing one must not rebuild every engine.
const SKIP = new Set(['dist', 'node_modules', 'test']);

async function filesUnder(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(entries.filter((entry) => !SKIP.has(entry.name)).map((entry) => filesUnder(join(path, entry.name))));
  return nested.flat();
}

/** A digest of every input's path and bytes: any change to a source, an asset or a package gives another. */
async function sourceDigest(): Promise<string> {
  const hash = createHash('sha256');
  const files = (await Promise.all(INPUTS.map(filesUnder))).flat().sort();
  for (const file of files)
    hash
      .update(relative(repositoryRoot, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * The engine's executable, built by `build` at most once per state of its sources, whichever test
 * file or worker process asks first. Tests run what the layer ships (the engine's own build, into
 * node_modules/.cache/engine-builds/<engine>-<digest>/); the files that asked for it each built it
 * again before (mailscan: about a second of esbuild per file, in some twenty files). A build goes
 * to a folder of its own and is renamed into place whole, so a process never sees half of one.
 */
export async function cachedEngineBuild(
  name: string,
  build: (outfile: string) => Promise<string> = (outfile) => buildEngineOf(name, outfile),
): Promise<string> {
  const dir = join(CACHE, `${name}-${await sourceDigest()}`);
  const bin = join(dir, 'bin', name);
  if (existsSync(bin)) return bin;
  await mkdir(CACHE, { recursive: true });
  const staging = await mkdtemp(join(CACHE, `${name}-building-`));
  await build(join(staging, 'bin', name));
  try {
    await rename(staging, dir);
  } catch (error) {
    // Another process finished the same build first: use its copy.
    if (!existsSync(bin)) throw error;
    await rm(staging, { recursive: true, force: true });
  }
  await removeStale(name, dir);
  return bin;
}

/** Builds of older sources, and builds left half-done, once an hour old (a run still using one has long finished). */
async function removeStale(name: string, current: string): Promise<void> {
  const hourAgo = Date.now() - 3_600_000;
  for (const entry of await readdir(CACHE)) {
    const path = join(CACHE, entry);
    if (!entry.startsWith(`${name}-`) || path === current) continue;
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (mtimeMs < hourAgo) await rm(path, { recursive: true, force: true });
  }
}
