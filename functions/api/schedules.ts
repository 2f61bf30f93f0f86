import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { EventBridgeTriggerScheduler } from '../../shared/adapters/eventbridge/eventbridge-trigger-scheduler.ts';
import { makeSchedulerClient } from '../../shared/adapters/eventbridge/scheduler-client.ts';
import { ApiConfig, TriggerConfig, readConfig } from '../../shared/config/api-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { systemClock } from '../../shared/ports/clock.ts';
import { makeUlidGenerator } from '../../shared/ports/id-generator.ts';
import { makeScheduleService } from '../../shared/services/schedule-service.ts';
import { makeSchedulesHandler } from './schedules-handler.ts';

// Composition root for AWS: configuration and clients are built once per cold start.
const config = readConfig(ApiConfig.and(TriggerConfig));
const logger = makeLogger('schedules');

const schedules = makeScheduleService({
  repo: makeDynamoDbScheduleRepository(makeDocumentClient(), config.TABLE_NAME),
  triggers: new EventBridgeTriggerScheduler({
    client: makeSchedulerClient(),
    groupName: config.SCHEDULE_GROUP_NAME,
    queueArn: config.SCAN_QUEUE_ARN,
    roleArn: config.SCHEDULER_ROLE_ARN,
    deadLetterArn: config.SCHEDULER_DLQ_ARN,
    logger,
  }),
  clock: systemClock,
  ids: makeUlidGenerator(),
  logger,
  quota: config.SCHEDULE_QUOTA,
});

export const handler = makeSchedulesHandler({ schedules, logger, allowedOrigins: config.ALLOWED_ORIGINS });
