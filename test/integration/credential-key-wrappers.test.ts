import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKmsKeyWrapper } from '../../shared/adapters/kms/kms-key-wrapper.ts';
import { LOCAL_CREDENTIAL_KEY_FILE, makeLocalKeyWrapper } from '../../shared/adapters/local/local-key-wrapper.ts';
import { CredentialUnreadable, type KeyWrapper } from '../../shared/ports/key-wrapper.ts';
import { openSecret, sealSecret } from '../../shared/services/credential-envelope.ts';
import { startMotoServer, type MotoServer } from '../helpers/moto-server.ts';

const secret = { token: 'glpat-wrapper-planted-7f3a' };
const tenantA = { tenant: 'tenant-a', alias: 'ci-bot' };

/** The same behaviour of every key wrapper: a sealed secret opens only under its own tenant and alias. */
function keyWrapperContract(name: string, wrapper: () => KeyWrapper) {
  describe(name, () => {
    it('opens a sealed secret under its own tenant and alias, and the seal holds no plaintext', async () => {
      const sealed = await sealSecret(wrapper(), secret, tenantA);
      expect(JSON.stringify(sealed)).not.toContain(secret.token);
      expect(JSON.stringify(sealed)).not.toContain(Buffer.from(secret.token).toString('base64'));
      expect(await openSecret(wrapper(), sealed, tenantA)).toEqual(secret);
    });

    it("refuses a ciphertext copied into another tenant's item, or under another alias", async () => {
      const sealed = await sealSecret(wrapper(), secret, tenantA);
      await expect(openSecret(wrapper(), sealed, { tenant: 'tenant-b', alias: 'ci-bot' })).rejects.toBeInstanceOf(CredentialUnreadable);
      await expect(openSecret(wrapper(), sealed, { tenant: 'tenant-a', alias: 'other' })).rejects.toBeInstanceOf(CredentialUnreadable);
    });

    it('unwraps a data key only under the context it was wrapped under (the wrapper itself checks, not only the AES layer)', async () => {
      const dataKey = Buffer.alloc(32, 7);
      const { wrapped, keyId } = await wrapper().wrap(dataKey, tenantA);
      expect(await wrapper().unwrap(wrapped, keyId, tenantA)).toEqual(dataKey);
      await expect(wrapper().unwrap(wrapped, keyId, { tenant: 'tenant-b', alias: 'ci-bot' })).rejects.toBeInstanceOf(CredentialUnreadable);
    });

    it('refuses a tampered ciphertext', async () => {
      const sealed = await sealSecret(wrapper(), secret, tenantA);
      const bytes = Buffer.from(sealed.ciphertext, 'base64');
      bytes[0] ^= 1;
      await expect(openSecret(wrapper(), { ...sealed, ciphertext: bytes.toString('base64') }, tenantA)).rejects.toBeInstanceOf(
        CredentialUnreadable,
      );
    });
  });
}

let moto: MotoServer;
let kms: KeyWrapper;
let local: KeyWrapper;
let dataDir: string;

beforeAll(async () => {
  moto = await startMotoServer();
  const client = new KMSClient(moto.clientConfig);
  const { KeyMetadata } = await client.send(new CreateKeyCommand({ Description: 'credential vault (test)' }));
  kms = makeKmsKeyWrapper(client, KeyMetadata!.Arn!);
  dataDir = await mkdtemp(join(tmpdir(), 'vault-key-'));
  local = await makeLocalKeyWrapper(dataDir);
});

afterAll(async () => {
  await moto?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

keyWrapperContract('the KMS key wrapper (moto_server KMS, encryption context {tenant, alias})', () => kms);
keyWrapperContract('the local key wrapper (AES-256-GCM under DATA_DIR key file)', () => local);

describe('the local key file', () => {
  it('is 32 bytes of mode 0600, kept across starts', async () => {
    const path = join(dataDir, LOCAL_CREDENTIAL_KEY_FILE);
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('600');
    expect((await stat(path)).size).toBe(32);
    const sealed = await sealSecret(local, secret, tenantA);
    expect(await openSecret(await makeLocalKeyWrapper(dataDir), sealed, tenantA)).toEqual(secret);
    expect(await readdir(dataDir)).toEqual([LOCAL_CREDENTIAL_KEY_FILE]);
  });

  it('does not open what another key file sealed', async () => {
    const other = await mkdtemp(join(tmpdir(), 'vault-key-'));
    try {
      const sealed = await sealSecret(local, secret, tenantA);
      await expect(openSecret(await makeLocalKeyWrapper(other), sealed, tenantA)).rejects.toBeInstanceOf(CredentialUnreadable);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
