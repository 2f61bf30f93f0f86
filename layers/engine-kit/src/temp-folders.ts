/**
 * Temporary folders an engine run owns, removed whatever happens: by their user when done, and by
 * the frame when the process is stopped (SIGTERM, what the runner sends at its timeout, or SIGINT)
 * or exits. A fetched pack left behind would hold the repository's secrets for whoever runs next
 * in the same /tmp (a warm Lambda's is shared by the jobs it serves).
 *
 * node's modules are taken when a folder is made, not at import, and the handlers are installed
 * with the first folder: every engine's frame imports this module, and a run that makes no folder
 * (mailscan's, `--version`) should not pay for fs/promises (some fifteen of node's modules) or a
 * signal handler at start-up (docs/mailscan-startup.md).
 */
const owned = new Set<string>();
/** The frame asked for the removal at exit (`removeTempFoldersOnExit`). */
let wanted = false;
let installed = false;

/** A new folder under `root` (default the system's temporary folder), removed at exit if not before. */
export async function ownedTempFolder(prefix: string, root?: string): Promise<string> {
  const path = process.getBuiltinModule('node:path');
  const os = process.getBuiltinModule('node:os');
  const dir = await process.getBuiltinModule('node:fs/promises').mkdtemp(path.join(root ?? os.tmpdir(), prefix));
  owned.add(dir);
  if (wanted) install();
  return dir;
}

export async function releaseTempFolder(dir: string): Promise<void> {
  owned.delete(dir);
  await process.getBuiltinModule('node:fs/promises').rm(dir, { recursive: true, force: true });
}

/** Removes every folder still owned, at once (signal handlers and `exit` cannot wait). */
export function removeOwnedTempFolders(): void {
  if (owned.size === 0) return;
  const { rmSync } = process.getBuiltinModule('node:fs');
  for (const dir of owned) rmSync(dir, { recursive: true, force: true });
  owned.clear();
}

/** Removes them on SIGTERM, SIGINT and exit from the first folder on; a stopped run exits 128 + the signal's number. */
export function removeTempFoldersOnExit(): void {
  wanted = true;
  if (owned.size > 0) install();
}

function install(): void {
  if (installed) return;
  installed = true;
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
