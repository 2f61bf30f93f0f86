import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { ApiConfig, readConfig } from '../shared/config/api-config.ts';
import { makeEventBridgeTriggers } from './eventbridge-triggers.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { makeReconcileService } from '../shared/services/reconcile-service.ts';
import { makeReconcileHandler } from './reconcile-handler.ts';

const config = readConfig(ApiConfig.pick({ TABLE_NAME: true }));
const logger = makeLogger('reconcile');

const triggers = makeEventBridgeTriggers(logger);
const reconciler = makeReconcileService({
  repo: makeDynamoDbScheduleRepository(makeDocumentClient(), config.TABLE_NAME),
  triggers,
  unrecognised: triggers,
  logger,
});

/** Invoked nightly by an EventBridge rule (repair) or by hand: `{"dry_run": true, "tenant": "acme"}`. */
export const handler = makeReconcileHandler(reconciler);
