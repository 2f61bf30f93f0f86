import type { TriggerScheduler } from '../../ports/trigger-scheduler.ts';
import type { ArtifactReferences } from '../../ports/artifact-references.ts';
import type { CredentialReferences } from '../../ports/credential-references.ts';
import { makeScheduleService } from '../schedule-service.ts';
import type { Adapters } from './adapters.ts';

/** The schedule service (schedules and backfill functions, the local runtime). */
export function composeScheduleService(
  {
    schedules,
    clock,
    ids,
    logger,
    targetPolicy,
    runnerTypes,
  }: Adapters<'schedules' | 'clock' | 'ids' | 'logger' | 'targetPolicy' | 'runnerTypes'>,
  {
    triggers,
    quota,
    artifacts,
    credentials,
  }: { triggers: TriggerScheduler; quota: number; artifacts: ArtifactReferences; credentials?: CredentialReferences },
) {
  return makeScheduleService({ repo: schedules, triggers, clock, ids, logger, quota, artifacts, targetPolicy, runnerTypes, credentials });
}
