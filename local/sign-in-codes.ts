import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Role } from '../shared/domain/identity.ts';

/** How long a printed sign-in link works if nobody uses it. */
export const SIGN_IN_CODE_TTL_MS = 8 * 3600 * 1000;

interface StoredCode {
  /** SHA-256 of the code, hex: the file never holds a code that could sign anyone in. */
  sha256: string;
  tenant: string;
  role: Role;
  expires_at: string;
}

export interface SignInCodes {
  /** A new one-time code for `role` of `tenant`. */
  issue(tenant: string, role: Role): Promise<string>;
  /** Who the code signs in, once: it is gone after this call. Null for an unknown, used or expired code. */
  redeem(code: string): Promise<{ tenant: string; role: Role } | null>;
}

const digest = (code: string) => createHash('sha256').update(code).digest('hex');

/**
 * The one-time codes of `npm start`'s sign-in links (docs/auth.md). A link carries a random code,
 * not a session token: the code is exchanged once for a session cookie (POST /api/session/code),
 * and what the runtime keeps is its hash, in `file` under DATA_DIR, so a code used before a
 * restart stays used after it and a leaked scroll-back signs nobody in. Calls are serialised; the
 * file is replaced whole (written beside it, then renamed), so a crash leaves the old or the new.
 */
export function makeSignInCodes(file: string, now: () => Date, ttlMs = SIGN_IN_CODE_TTL_MS): SignInCodes {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  async function load(): Promise<StoredCode[]> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const stored = JSON.parse(text) as StoredCode[];
    // Expired codes are dropped whenever the file is read.
    return stored.filter((entry) => Date.parse(entry.expires_at) > now().getTime());
  }

  async function save(codes: StoredCode[]): Promise<void> {
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(codes), { mode: 0o600 });
    await rename(temporary, file);
  }

  return {
    issue: (tenant, role) =>
      serial(async () => {
        const code = randomBytes(32).toString('base64url');
        const codes = await load();
        codes.push({ sha256: digest(code), tenant, role, expires_at: new Date(now().getTime() + ttlMs).toISOString() });
        await save(codes);
        return code;
      }),
    redeem: (code) =>
      serial(async () => {
        const codes = await load();
        const hash = digest(code);
        const found = codes.find((entry) => entry.sha256 === hash);
        await save(codes.filter((entry) => entry !== found));
        return found ? { tenant: found.tenant, role: found.role } : null;
      }),
  };
}
