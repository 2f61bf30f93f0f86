import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbArtifactRepository } from '../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { makeDynamoDbLegacyMarkerRepository } from '../shared/adapters/dynamodb/dynamodb-legacy-marker-repository.ts';
import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { makePostgresLegacySource } from '../shared/adapters/postgres/postgres-legacy-source.ts';
import { makeLegacyDatabaseUrlLoader } from '../shared/adapters/secrets/legacy-database-url.ts';
import { BackfillConfig, readConfig } from '../shared/config/function-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { makeArtifactReferences } from '../shared/services/artifact-references.ts';
import { makeBackfillService } from '../shared/services/backfill-service.ts';
import { composeScheduleService } from '../shared/services/compose/schedule-service.ts';
import { makeBackfillHandler } from './backfill-handler.ts';
import { makeEventBridgeTriggers } from './eventbridge-triggers.ts';
import { runnerScanTypes } from '../shared/domain/runner-types.ts';
import { makeDynamoDbCredentialRepository } from '../shared/adapters/dynamodb/dynamodb-credential-repository.ts';
import { makeCredentialReferences } from '../shared/services/credential-references.ts';

// Composition root of the one-off backfill function (DESIGN §9): the same backfill service as
// `npm run backfill`, writing through the same schedule service as the API.
const config = readConfig(BackfillConfig);
const logger = makeLogger('backfill');
const documentClient = makeDocumentClient();
const ids = makeUlidGenerator();
const schedules = composeScheduleService(
  {
    schedules: makeDynamoDbScheduleRepository(documentClient, config.TABLE_NAME),
    clock: systemClock,
    ids,
    logger,
    targetPolicy: { allowPrivate: config.ALLOW_PRIVATE_TARGETS },
    runnerTypes: new Set(runnerScanTypes()),
  },
  {
    triggers: makeEventBridgeTriggers(config, logger),
    quota: config.SCHEDULE_QUOTA,
    // A legacy token reference becomes the tenant's credential of that alias, checked like the API's (DESIGN §16).
    credentials: makeCredentialReferences(makeDynamoDbCredentialRepository(documentClient, config.TABLE_NAME)),
    // Legacy rows carry no artifact ids, so this reads nothing in practice; wired for the same rules as the API.
    artifacts: makeArtifactReferences(makeDynamoDbArtifactRepository(documentClient, config.TABLE_NAME), systemClock),
  },
);
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
