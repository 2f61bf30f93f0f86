import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../domain/credential.ts';
import { CredentialUnreadable, type EncryptionContext, type KeyWrapper } from '../ports/key-wrapper.ts';

/** The associated data of both layers: the context, unambiguous (JSON of the pair). */
export function associatedData(context: EncryptionContext): Buffer {
  return Buffer.from(JSON.stringify([context.tenant, context.alias]), 'utf8');
}

/**
 * Envelope encryption of one secret: a fresh 256-bit data key encrypts the secret's JSON with
 * AES-256-GCM (associated data: the context), and the key wrapper wraps the data key under the
 * same context. The data key is never stored in the clear.
 */
export async function sealSecret(wrapper: KeyWrapper, secret: unknown, context: EncryptionContext): Promise<SealedSecret> {
  const dataKey = randomBytes(32);
  try {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
    cipher.setAAD(associatedData(context));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
    const { wrapped, keyId } = await wrapper.wrap(dataKey, context);
    return {
      scheme: wrapper.scheme,
      key_id: keyId,
      wrapped_key: wrapped.toString('base64'),
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    };
  } finally {
    dataKey.fill(0);
  }
}

/** Opens a sealed secret under `context`; CredentialUnreadable when it was sealed under another. */
export async function openSecret(wrapper: KeyWrapper, sealed: SealedSecret, context: EncryptionContext): Promise<unknown> {
  if (sealed.scheme !== wrapper.scheme) throw new CredentialUnreadable(`the secret was sealed by ${sealed.scheme}, not ${wrapper.scheme}`);
  const dataKey = await wrapper.unwrap(Buffer.from(sealed.wrapped_key, 'base64'), sealed.key_id, context);
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(associatedData(context));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8'));
  } catch (error) {
    if (error instanceof CredentialUnreadable) throw error;
    throw new CredentialUnreadable('the secret does not open under this tenant and alias');
  } finally {
    dataKey.fill(0);
  }
}
