import { makeDynamoDbLegacyMarkerRepository } from '../shared/adapters/dynamodb/dynamodb-legacy-marker-repository.ts';
import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makePostgresLegacySource } from '../shared/adapters/postgres/postgres-legacy-source.ts';
import { makeLegacyDatabaseUrlLoader } from '../shared/adapters/secrets/legacy-database-url.ts';
import { ApiConfig, BackfillConfig, readConfig } from '../shared/config/api-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { systemClock } from '../shared/ports/clock.ts';
import { makeUlidGenerator } from '../shared/ports/id-generator.ts';
import { makeBackfillService } from '../shared/services/backfill-service.ts';
import { makeScheduleService } from '../shared/services/schedule-service.ts';
import { makeBackfillHandler } from './backfill-handler.ts';
import { makeEventBridgeTriggers } from './eventbridge-triggers.ts';

// Composition root of the one-off backfill function (DESIGN §9): the same backfill service as
// `npm run backfill`, writing through the same schedule service as the API.
const config = readConfig(ApiConfig.pick({ TABLE_NAME: true, SCHEDULE_QUOTA: true }).extend(BackfillConfig.shape));
const logger = makeLogger('backfill');
const documentClient = makeDocumentClient();
const ids = makeUlidGenerator();
const schedules = makeScheduleService({
  repo: makeDynamoDbScheduleRepository(documentClient, config.TABLE_NAME),
  triggers: makeEventBridgeTriggers(logger),
  clock: systemClock,
  ids,
  logger,
  quota: config.SCHEDULE_QUOTA,
});
const markers = makeDynamoDbLegacyMarkerRepository(documentClient, config.TABLE_NAME);
const databaseUrl = makeLegacyDatabaseUrlLoader(config.LEGACY_DATABASE_SECRET_NAME);

export const handler = makeBackfillHandler(async (options) => {
  const source = makePostgresLegacySource({ connectionString: await databaseUrl() });
  try {
    return await makeBackfillService({ source, markers, schedules, clock: systemClock, ids, logger }).run(options);
  } finally {
    await source.close();
  }
});
