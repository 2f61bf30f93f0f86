import { CredentialFile } from '../../lib/credential.ts';
import type { Clock } from '../ports/clock.ts';
import type { CredentialRepository } from '../ports/credential-repository.ts';
import { CredentialUnreadable, type KeyWrapper } from '../ports/key-wrapper.ts';
import { openSecret } from './credential-envelope.ts';

/** Opens one credential of a tenant for one scan (the dispatch: Decrypt only, in AWS). */
export interface CredentialOpener {
  /** The credential as the engine's file holds it; throws (without the secret) when it is gone or does not open. */
  open(tenant: string, alias: string): Promise<CredentialFile>;
}

/**
 * Reads the item under the job's tenant, opens its sealed secret under `{tenant, alias}`, and
 * records `last_used_at`. A credential deleted since the scan was created fails the target with an
 * error: a private repository scanned without its token would read as "nothing found".
 */
export function makeCredentialOpener({
  repo,
  wrapper,
  clock,
}: {
  repo: CredentialRepository;
  wrapper: KeyWrapper;
  clock: Clock;
}): CredentialOpener {
  return {
    async open(tenant, alias) {
      const record = await repo.get(tenant, alias);
      if (!record) throw new Error(`credential ${alias} no longer exists in this tenant`);
      let secret: unknown;
      try {
        secret = await openSecret(wrapper, record.sealed, { tenant, alias });
      } catch (error) {
        if (error instanceof CredentialUnreadable) throw new Error(`credential ${alias} could not be decrypted: ${error.message}`);
        throw error;
      }
      const file = CredentialFile.safeParse({ alias, kind: record.kind, secret, allowed_hosts: record.allowed_hosts });
      if (!file.success) throw new Error(`credential ${alias} holds a secret that is not a ${record.kind}`);
      await repo.touch(tenant, alias, clock.now().toISOString());
      return file.data;
    },
  };
}
