import type { MessageQueue } from '../../ports/message-queue.ts';
import type { ScanLogs } from '../../ports/scan-log.ts';
import type { ArtifactReferences } from '../../ports/artifact-references.ts';
import type { CredentialReferences } from '../../ports/credential-references.ts';
import { makeScanService } from '../scan-service.ts';
import type { ScanServiceAdapters } from './adapters.ts';

/** The scan service (scans function, the local runtime). */
export function composeScanService(
  { schedules, scans, findings, clock, ids, logger, targetPolicy, runnerTypes }: ScanServiceAdapters,
  {
    queue,
    scanLogs,
    artifacts,
    credentials,
  }: { queue: MessageQueue; scanLogs: ScanLogs; artifacts: ArtifactReferences; credentials?: CredentialReferences },
) {
  return makeScanService({
    scans,
    findings,
    schedules,
    queue,
    ids,
    clock,
    scanLogs,
    logger,
    artifacts,
    targetPolicy,
    runnerTypes,
    credentials,
  });
}
