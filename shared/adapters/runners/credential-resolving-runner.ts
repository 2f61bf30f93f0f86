import { credentialAllowsHost } from '../../../lib/credential.ts';
import type { RunnerInput, RunnerResult, ScanRunner } from '../../ports/scan-runner.ts';
import type { CredentialOpener } from '../../services/credential-opener.ts';
import { targetHostOf } from '../../services/credential-references.ts';

/**
 * Wraps a runner so that `scope.credential` is opened for this run (under the job's tenant only)
 * and handed to it as `input.credential`; the engine runner writes it to the engine's 0600 file
 * and removes it. The host is checked again here: `allowed_hosts` may have changed since the
 * scan was created, and a target outside it fails rather than scanning without the credential.
 */
export function withCredential(runner: ScanRunner, opener: CredentialOpener): ScanRunner {
  return {
    name: runner.name,
    async run(input: RunnerInput): Promise<RunnerResult> {
      const alias = input.scope.credential;
      if (typeof alias !== 'string') return runner.run(input);
      const credential = await opener.open(input.tenant, alias);
      const host = targetHostOf(input.target);
      if (!credentialAllowsHost(credential, host)) throw new Error(`host ${host} is not in the allowed_hosts of credential ${alias}`);
      input.logger.info('credential opened', { credential: alias, kind: credential.kind });
      return runner.run({ ...input, credential });
    },
  };
}
