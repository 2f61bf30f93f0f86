/** What a sealed secret is bound to: decrypting it under any other tenant or alias fails. */
export interface EncryptionContext {
  tenant: string;
  alias: string;
}

/**
 * Port: the master key of the credential vault's envelope encryption (DESIGN §16). It wraps a data
 * key under the context and unwraps it only under the same context. In AWS a KMS key of the stack
 * (the context is KMS's encryption context; the API function may only Encrypt, the dispatch
 * function only Decrypt); locally AES-256-GCM under a key file in DATA_DIR with the context as
 * associated data.
 */
export interface KeyWrapper {
  /** `kms` or `local`: stored beside the ciphertext. */
  readonly scheme: string;
  wrap(dataKey: Buffer, context: EncryptionContext): Promise<{ wrapped: Buffer; keyId: string }>;
  /** Throws CredentialUnreadable when the context (or the key) is not the one it was wrapped under. */
  unwrap(wrapped: Buffer, keyId: string, context: EncryptionContext): Promise<Buffer>;
}

/** A sealed secret that does not open under this tenant and alias (moved, tampered with, or another key). */
export class CredentialUnreadable extends Error {
  override readonly name = 'CredentialUnreadable';
}
