import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbStore } from '../shared/adapters/dynamodb/dynamodb-store.ts';
import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { ReconcileConfig, readConfig } from '../shared/config/api-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { composeScanServices } from '../shared/services/compose-scan-services.ts';
import { makeEventBridgeTriggers } from './eventbridge-triggers.ts';
import { makeReconcileHandler } from './reconcile-handler.ts';

const config = readConfig(ReconcileConfig);
const logger = makeLogger('reconcile');
const services = composeScanServices({
  ...makeDynamoDbStore(makeDocumentClient(), config.TABLE_NAME),
  clock: systemClock,
  ids: makeUlidGenerator(),
  logger,
});

const triggers = makeEventBridgeTriggers(config, logger);
const reconciler = services.reconcileService({ triggers, unrecognised: triggers });

/** Invoked nightly by an EventBridge rule (repair) or by hand: `{"dry_run": true, "tenant": "acme"}`. */
export const handler = makeReconcileHandler(reconciler);
