import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CredentialUnreadable, type EncryptionContext, type KeyWrapper } from '../../ports/key-wrapper.ts';
import { associatedData } from '../../services/credential-envelope.ts';

/** The local master key's file under DATA_DIR: 32 random bytes, mode 0600. */
export const LOCAL_CREDENTIAL_KEY_FILE = 'credential-master.key';

/**
 * The local vault's master key (DESIGN §16): AES-256-GCM under a key file in DATA_DIR, the
 * `{tenant, alias}` context as associated data, so a wrapped key moved to another item does not
 * unwrap. The file is made on first use (mode 0600); one others may read is refused.
 */
export async function makeLocalKeyWrapper(dataDir: string): Promise<KeyWrapper> {
  const path = join(dataDir, LOCAL_CREDENTIAL_KEY_FILE);
  let key: Buffer;
  try {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) throw new Error(`${path} may be read by others (mode ${(info.mode & 0o777).toString(8)}): chmod 600 it`);
    key = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    key = randomBytes(32);
    await writeFile(path, key, { mode: 0o600, flag: 'wx' });
  }
  if (key.length !== 32) throw new Error(`${path} is not a 256-bit key`);
  return {
    scheme: 'local',
    async wrap(dataKey: Buffer, context: EncryptionContext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(associatedData(context));
      const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
      return { wrapped: Buffer.concat([iv, body, cipher.getAuthTag()]), keyId: 'local' };
    },
    async unwrap(wrapped: Buffer, _keyId: string, context: EncryptionContext) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, wrapped.subarray(0, 12));
        decipher.setAAD(associatedData(context));
        decipher.setAuthTag(wrapped.subarray(wrapped.length - 16));
        return Buffer.concat([decipher.update(wrapped.subarray(12, wrapped.length - 16)), decipher.final()]);
      } catch {
        throw new CredentialUnreadable('the data key does not unwrap under this tenant and alias');
      }
    },
  };
}
