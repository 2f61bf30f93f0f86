import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbArtifactRepository } from '../../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { SchedulesConfig, readConfig } from '../../shared/config/function-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeArtifactReferences } from '../../shared/services/artifact-references.ts';
import { composeScheduleService } from '../../shared/services/compose/schedule-service.ts';
import { makeEventBridgeTriggers } from '../eventbridge-triggers.ts';
import { makeSchedulesHandler } from './schedules-handler.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';

// Composition root for AWS: configuration and clients are built once per cold start.
const config = readConfig(SchedulesConfig);
const logger = makeLogger('schedules');
const documents = makeDocumentClient();
const schedules = composeScheduleService(
  {
    schedules: makeDynamoDbScheduleRepository(documents, config.TABLE_NAME),
    clock: systemClock,
    ids: makeUlidGenerator(),
    logger,
    targetPolicy: { allowPrivateNetworks: config.ALLOW_PRIVATE_TARGETS },
    runnerTypes: new Set(runnerScanTypes()),
  },
  {
    triggers: makeEventBridgeTriggers(config, logger),
    quota: config.SCHEDULE_QUOTA,
    // The scope's artifact ids are read from their rows (GetItem), never their bytes: no bucket grant.
    artifacts: makeArtifactReferences(makeDynamoDbArtifactRepository(documents, config.TABLE_NAME), systemClock),
  },
);

export const handler = makeSchedulesHandler({ schedules, logger, allowedOrigins: config.ALLOWED_ORIGINS });
