import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { ApiConfig, readConfig } from '../../shared/config/api-config.ts';
import { makeEventBridgeTriggers } from '../eventbridge-triggers.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { makeScheduleService } from '../../shared/services/schedule-service.ts';
import { makeSchedulesHandler } from './schedules-handler.ts';

// Composition root for AWS: configuration and clients are built once per cold start.
const config = readConfig(ApiConfig);
const logger = makeLogger('schedules');

const schedules = makeScheduleService({
  repo: makeDynamoDbScheduleRepository(makeDocumentClient(), config.TABLE_NAME),
  triggers: makeEventBridgeTriggers(logger),
  clock: systemClock,
  ids: makeUlidGenerator(),
  logger,
  quota: config.SCHEDULE_QUOTA,
});

export const handler = makeSchedulesHandler({ schedules, logger, allowedOrigins: config.ALLOWED_ORIGINS });
