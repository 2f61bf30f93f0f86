import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where the local HS256 key lives in a data directory. */
export function sessionKeyFile(dataDir: string): string {
  return join(dataDir, 'session-key');
}

/** The local key of `dataDir`, or null when that directory has none (no server ever ran on it). */
export async function readSessionKey(dataDir: string): Promise<string | null> {
  try {
    return (await readFile(sessionKeyFile(dataDir), 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The local HS256 key: `<dataDir>/session-key`, made on first use, readable by the owner only. */
export async function loadOrCreateSessionKey(dataDir: string): Promise<string> {
  const existing = await readSessionKey(dataDir);
  if (existing !== null) return existing;
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(48).toString('base64url');
  await writeFile(sessionKeyFile(dataDir), `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(sessionKeyFile(dataDir), 'utf8')).trim();
}

/**
 * The key a client CLI signs or authenticates with: the server's own, never a new one. A missing
 * key means this shell's DATA_DIR is not the server's, so it says how to point at the right one.
 */
export async function requireSessionKey(dataDir: string): Promise<string> {
  const key = await readSessionKey(dataDir);
  if (key !== null) return key;
  process.stderr.write(
    `no session key at ${sessionKeyFile(dataDir)}: no service has run with this data directory.\n` +
      `  Start it first (npm start), or set DATA_DIR to the directory npm start printed ("data: …"),\n` +
      `  e.g. DATA_DIR=/path/to/data npm run session -- --tenant acme\n`,
  );
  process.exit(1);
}
