import { mapBounded } from '../../../lib/concurrency.ts';
import { manifestOfScanType } from '../../../layers/manifests.ts';
import type { Clock } from '../../ports/clock.ts';
import type { FindingRepository } from '../../ports/finding-repository.ts';
import type { IssueRepository } from '../../ports/issue-repository.ts';
import type { RunnerInput, RunnerResult, ScanRunner } from '../../ports/scan-runner.ts';
import type { ScanRepository } from '../../ports/scan-repository.ts';
import type { CredentialOpener } from '../../services/credential-opener.ts';

/** What the nhi context is read from: the tenant's issues, their occurrences, and its scans. */
export interface CredentialTargetSources {
  issues: Pick<IssueRepository, 'list'>;
  findings: Pick<FindingRepository, 'occurrences'>;
  scans: Pick<ScanRepository, 'list'>;
  clock: Clock;
}

/** Open secret_scan issues read for their hashes; beyond this the list is cut and said so in the log. */
export const MAX_SECRET_ISSUES = 5000;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The SHA-256 of every open secret_scan issue's secret in the tenant (DESIGN §20): secretscan puts
 * it in each finding's `evidence.sha256` (and uses it as the fingerprint key), never the value, so
 * the engine gets these hashes and nothing of the other secrets.
 */
export async function openSecretHashes(sources: CredentialTargetSources, tenant: string): Promise<{ hashes: string[]; complete: boolean }> {
  const fingerprints: string[] = [];
  let cursor: string | undefined;
  const now = sources.clock.now().toISOString();
  do {
    const page = await sources.issues.list(tenant, { status: 'open', scanType: 'secret_scan', ruleId: 'secret.', now }, 200, cursor);
    fingerprints.push(...page.items.map((issue) => issue.fingerprint));
    cursor = page.nextCursor ?? undefined;
  } while (cursor && fingerprints.length < MAX_SECRET_ISSUES);
  const hashes = await mapBounded(fingerprints.slice(0, MAX_SECRET_ISSUES), 8, async (fingerprint) => {
    const [latest] = await sources.findings.occurrences(tenant, fingerprint, 1);
    const hash = latest?.evidence.sha256;
    return typeof hash === 'string' && HEX64.test(hash) ? hash : undefined;
  });
  return { hashes: [...new Set(hashes.filter((hash): hash is string => hash !== undefined))], complete: !cursor };
}

/** The newest finished nhi scan of this alias: its window holds the scanner's own use of the key. */
async function previousScan(sources: CredentialTargetSources, input: RunnerInput) {
  const page = await sources.scans.list(input.tenant, { scanType: input.scanType, target: input.target }, 20);
  const previous = page.items.find(
    (job) => job.started_at && (job.status === 'succeeded' || job.status === 'partial' || job.status === 'failed'),
  );
  return previous?.started_at ? { started_at: previous.started_at, finished_at: previous.finished_at ?? null } : null;
}

/**
 * Wraps a runner so that a scan type whose target is a credential alias (nhi, DESIGN §20) gets the
 * credential the target names, opened under the job's tenant only, plus its context: the tenant's
 * open secret_scan hashes and the previous scan's window. Other types pass through untouched.
 */
export function withCredentialTarget(runner: ScanRunner, opener: CredentialOpener, sources: CredentialTargetSources): ScanRunner {
  return {
    name: runner.name,
    async run(input: RunnerInput): Promise<RunnerResult> {
      if (manifestOfScanType(input.scanType)?.targetKind !== 'credential_alias') return runner.run(input);
      const credential = await opener.open(input.tenant, input.target);
      const [leaked, previous] = await Promise.all([openSecretHashes(sources, input.tenant), previousScan(sources, input)]);
      if (!leaked.complete) input.logger.info('secret issues cut', { read: MAX_SECRET_ISSUES });
      input.logger.info('credential opened', { credential: input.target, kind: credential.kind, secret_hashes: leaked.hashes.length });
      return runner.run({
        ...input,
        credential,
        context: { leaked_sha256: leaked.hashes, leaked_sha256_complete: leaked.complete, previous_scan: previous },
      });
    },
  };
}
