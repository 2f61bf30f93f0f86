import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { snapshotBlobFor, snapshotBuildArgs, snapshotScriptFor } from '../../../lib/startup-snapshot.ts';
import type { Logger } from '../../ports/logger.ts';

/**
 * Whether an engine's CLI starts from its start-up snapshot (docs/mailscan-startup.md; an option
 * of the one runner, which the manifest's `startupSnapshot` turns on: mailscan's): the
 * `node` options that make it so, or none. A snapshot works only with the exact node binary that
 * built it, and a node given one it rejects (another version, a truncated or garbled file) dies
 * before the CLI runs. So a blob is used only after a probe with this node accepts it: `--version`
 * from the snapshot with V8's checksum check on, once per blob for the life of the process.
 *
 * The blob comes from the layer when the build made it with this node (`npm start`: the same
 * machine). Otherwise (Lambda: the layer ships the snapshot's script, not a blob, which the
 * managed runtime's node would reject) the first scan starts one background `node
 * --build-snapshot` of the layer's script with this node, into `cacheDir` (the OS temporary folder
 * by default: /tmp in Lambda), written under a temporary name and renamed into place, then probed;
 * scans run the plain bundle meanwhile and start from the blob once it is accepted. One build per
 * process, whatever the number of scans at once; a build that fails, is killed or runs out of
 * disk, or a script that makes no working blob, leaves the plain bundle in use: never a failed or
 * slower scan.
 */
interface SnapshotState {
  /** The blob scans start from, once one was accepted; null: the plain bundle. */
  blob: string | null;
  /** The background build, when this process started one; settles (never rejects) once it is done and probed. */
  build: Promise<void> | null;
}

export interface SnapshotSettings {
  /** Where blobs made from the layer's script are kept (per node binary and script). */
  cacheDir: string;
  /** Told once about the background build's outcome (a blob made, or why not). */
  logger?: Logger;
  /** A build that takes longer is stopped. */
  buildTimeoutMs?: number;
}

const states = new Map<string, Promise<SnapshotState>>();

/** How long the probe may take before the snapshot counts as rejected. */
const PROBE_TIMEOUT_MS = 10_000;
/** A build takes ~1 s of CPU; one still running after this is stopped (a frozen Lambda environment's clock aside). */
const BUILD_TIMEOUT_MS = 120_000;

export async function snapshotNodeOptions(node: string, bin: string, settings: SnapshotSettings): Promise<string[]> {
  const { blob } = await snapshotState(node, bin, settings);
  return blob === null ? [] : ['--snapshot-blob', blob];
}

/** Settles when this process's background build for `node` and `bin` (if it started one) is done and its blob probed. */
export async function snapshotBuildSettled(node: string, bin: string, settings: SnapshotSettings): Promise<void> {
  await (
    await snapshotState(node, bin, settings)
  ).build;
}

function snapshotState(node: string, bin: string, settings: SnapshotSettings): Promise<SnapshotState> {
  const key = [node, bin, settings.cacheDir].join('\0');
  let state = states.get(key);
  if (!state) {
    state = firstState(node, bin, settings);
    states.set(key, state);
  }
  return state;
}

async function firstState(node: string, bin: string, settings: SnapshotSettings): Promise<SnapshotState> {
  const layerBlob = snapshotBlobFor(bin);
  if (await probeSnapshot(node, bin, layerBlob)) return { blob: layerBlob, build: null };
  const script = snapshotScriptFor(bin);
  let cached: string;
  try {
    cached = join(settings.cacheDir, await cachedBlobName(node, script));
  } catch {
    // No script in the layer (a build without the snapshot) or no such node: the plain bundle.
    return { blob: null, build: null };
  }
  // A blob is code every scan runs, with the operator keys in its environment: only from a folder
  // no one else can write to (the OS temporary folder is shared outside Lambda).
  if (!(await privateFolder(settings.cacheDir))) {
    settings.logger?.warn('snapshot cache folder is not private to this user: scans run the plain bundle', {
      folder: settings.cacheDir,
    });
    return { blob: null, build: null };
  }
  if (await probeSnapshot(node, bin, cached)) return { blob: cached, build: null };
  const state: SnapshotState = { blob: null, build: null };
  const started = performance.now();
  state.build = buildSnapshot(node, script, cached, settings.buildTimeoutMs ?? BUILD_TIMEOUT_MS)
    .then(async (failure) => {
      if (failure === null && !(await probeSnapshot(node, bin, cached))) {
        failure = `${node} does not accept the blob it made from ${script}`;
        await rm(cached, { force: true }).catch(() => undefined);
      }
      const wallMs = Math.round(performance.now() - started);
      if (failure !== null) {
        settings.logger?.warn('snapshot not built: scans run the plain bundle', { engine: basename(bin), message: failure, wallMs });
        return;
      }
      state.blob = cached;
      settings.logger?.info('snapshot built', { engine: basename(bin), blob: cached, wallMs });
    })
    .catch(() => undefined);
  return state;
}

/** Creates `folder` (this user's alone) if it is missing; whether it is a folder of this user's that no one else may write to. */
async function privateFolder(folder: string): Promise<boolean> {
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const info = await stat(folder);
    return info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The cached blob's name: one per script and node binary (its path, size, modification time and inode). */
async function cachedBlobName(node: string, script: string): Promise<string> {
  const [text, binary] = await Promise.all([readFile(script), stat(node)]);
  const hash = createHash('sha256')
    .update(text)
    .update(`\0${node}\0${binary.size}\0${binary.mtimeMs}\0${binary.ino}`)
    .digest('hex')
    .slice(0, 32);
  return `${basename(script).replace(/-snapshot\.cjs$/, '')}-${hash}.blob`;
}

/** Makes `blob` from `script` with `node`: null when it did, else why not. Never throws. */
async function buildSnapshot(node: string, script: string, blob: string, timeoutMs: number): Promise<string | null> {
  const folder = dirname(blob);
  const temporary = join(folder, `${basename(blob)}.${process.pid}-${randomUUID()}.tmp`);
  try {
    await removeStaleTemporaries(folder, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        node,
        snapshotBuildArgs(script, temporary),
        { cwd: folder, env: { PATH: process.env.PATH ?? '' }, timeout: timeoutMs, maxBuffer: 1024 * 1024, encoding: 'utf8' },
        (error, _stdout, stderr) => {
          if (!error) return resolve();
          const why = error.killed || error.signal ? `stopped (${error.signal ?? 'killed'})` : `exit ${String(error.code)}`;
          reject(new Error(`node --build-snapshot ${why}: ${stderr.trim().split('\n').pop() ?? ''}`));
        },
      );
      try {
        // Beside the scans it runs with, never ahead of them.
        if (child.pid !== undefined) setPriority(child.pid, 19);
      } catch {
        // Not allowed here, or already gone: it runs at normal priority.
      }
    });
    await rename(temporary, blob);
    return null;
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    return error instanceof Error ? error.message : String(error);
  }
}

/** Temporary blobs of builds that cannot still be running (older than a build may take): a killed process's leftovers. */
async function removeStaleTemporaries(folder: string, timeoutMs: number): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.endsWith('.tmp'))
      .map(async (name) => {
        const path = join(folder, name);
        const info = await stat(path).catch(() => null);
        if (info && Date.now() - info.mtimeMs > 2 * timeoutMs) await rm(path, { force: true }).catch(() => undefined);
      }),
  );
}

async function probeSnapshot(node: string, bin: string, blob: string): Promise<boolean> {
  try {
    await access(blob);
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    execFile(
      node,
      ['--verify-snapshot-checksum', '--snapshot-blob', blob, bin, '--version'],
      { env: { PATH: process.env.PATH ?? '' }, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout) => resolve(!error && stdout.startsWith(`${basename(bin)} `) && /^\S+ \S+\n$/.test(stdout)),
    );
  });
}
