/**
 * Temporary folders an engine run owns, removed whatever happens: by their user when done, and by
 * the frame when the process is stopped (SIGTERM, what the runner sends at its timeout, or SIGINT)
 * or exits. A fetched pack left behind would hold the repository's secrets for whoever runs next
 * in the same /tmp (a warm Lambda's is shared by the jobs it serves).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const owned = new Set<string>();

/** A new folder under `root` (default the system's temporary folder), removed at exit if not before. */
export async function ownedTempFolder(prefix: string, root?: string): Promise<string> {
  const dir = await mkdtemp(join(root ?? tmpdir(), prefix));
  owned.add(dir);
  return dir;
}

export async function releaseTempFolder(dir: string): Promise<void> {
  owned.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/** Removes every folder still owned, at once (signal handlers and `exit` cannot wait). */
export function removeOwnedTempFolders(): void {
  for (const dir of owned) rmSync(dir, { recursive: true, force: true });
  owned.clear();
}

/** Installs the removal on SIGTERM, SIGINT and exit; a stopped run exits 128 + the signal's number. */
export function removeTempFoldersOnExit(): void {
  process.once('exit', removeOwnedTempFolders);
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    process.once(signal, () => {
      removeOwnedTempFolders();
      process.exit(code);
    });
  }
}
