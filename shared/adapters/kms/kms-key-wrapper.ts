import { DecryptCommand, EncryptCommand, InvalidCiphertextException, type KMSClient } from '@aws-sdk/client-kms';
import { CredentialUnreadable, type EncryptionContext, type KeyWrapper } from '../../ports/key-wrapper.ts';

/**
 * The vault's master key in AWS (DESIGN §16): a KMS key of the stack wraps each data key with
 * Encrypt and unwraps it with Decrypt, both under the encryption context `{tenant, alias}`. The
 * key policy grants the API function Encrypt only and the dispatch function Decrypt only, each on
 * the condition that the context names both keys (infra/constructs/credential-key.ts). A wrapped
 * key moved to another tenant's item fails KMS's check of the context.
 */
export function makeKmsKeyWrapper(client: KMSClient, keyId: string): KeyWrapper {
  const contextOf = ({ tenant, alias }: EncryptionContext) => ({ tenant, alias });
  return {
    scheme: 'kms',
    async wrap(dataKey, context) {
      const { CiphertextBlob, KeyId } = await client.send(
        new EncryptCommand({ KeyId: keyId, Plaintext: dataKey, EncryptionContext: contextOf(context) }),
      );
      if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
      return { wrapped: Buffer.from(CiphertextBlob), keyId: KeyId ?? keyId };
    },
    async unwrap(wrapped, storedKeyId, context) {
      try {
        const { Plaintext } = await client.send(
          new DecryptCommand({ CiphertextBlob: wrapped, KeyId: storedKeyId, EncryptionContext: contextOf(context) }),
        );
        if (!Plaintext) throw new CredentialUnreadable('KMS Decrypt returned no plaintext');
        return Buffer.from(Plaintext);
      } catch (error) {
        if (error instanceof InvalidCiphertextException) {
          throw new CredentialUnreadable('the data key does not unwrap under this tenant and alias');
        }
        throw error;
      }
    },
  };
}
