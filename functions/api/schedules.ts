import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { SchedulesConfig, readConfig } from '../../shared/config/api-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { composeScheduleService } from '../../shared/services/compose/schedule-service.ts';
import { makeEventBridgeTriggers } from '../eventbridge-triggers.ts';
import { makeSchedulesHandler } from './schedules-handler.ts';

// Composition root for AWS: configuration and clients are built once per cold start.
const config = readConfig(SchedulesConfig);
const logger = makeLogger('schedules');
const schedules = composeScheduleService(
  {
    schedules: makeDynamoDbScheduleRepository(makeDocumentClient(), config.TABLE_NAME),
    clock: systemClock,
    ids: makeUlidGenerator(),
    logger,
    targetPolicy: { allowPrivateNetworks: config.ALLOW_PRIVATE_TARGETS },
  },
  { triggers: makeEventBridgeTriggers(config, logger), quota: config.SCHEDULE_QUOTA },
);

export const handler = makeSchedulesHandler({ schedules, logger, allowedOrigins: config.ALLOWED_ORIGINS });
