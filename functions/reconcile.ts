import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDynamoDbScanRepository } from '../shared/adapters/dynamodb/dynamodb-scan-repository.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { ReconcileConfig, readConfig } from '../shared/config/function-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { composeReconcileService } from '../shared/services/compose/reconcile-service.ts';
import { makeEventBridgeTriggers } from './eventbridge-triggers.ts';
import { makeReconcileHandler } from './reconcile-handler.ts';

const config = readConfig(ReconcileConfig);
const logger = makeLogger('reconcile');
const triggers = makeEventBridgeTriggers(config, logger);
const client = makeDocumentClient();
// No requeueFire: in AWS a lost fire is still in SQS, whose redelivery or DLQ handler settles it.
const reconciler = composeReconcileService(
  {
    schedules: makeDynamoDbScheduleRepository(client, config.TABLE_NAME),
    scans: makeDynamoDbScanRepository(client, config.TABLE_NAME),
    ids: makeUlidGenerator(),
    logger,
  },
  { triggers, unrecognised: triggers },
);

/** Invoked nightly by an EventBridge rule (repair) or by hand: `{"dry_run": true, "tenant": "acme"}`. */
export const handler = makeReconcileHandler(reconciler);
