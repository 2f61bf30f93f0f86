import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { EventBridgeTriggerScheduler } from '../shared/adapters/eventbridge/eventbridge-trigger-scheduler.ts';
import { makeSchedulerClient } from '../shared/adapters/eventbridge/scheduler-client.ts';
import { ApiConfig, TriggerConfig, readConfig } from '../shared/config/api-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { makeReconcileService } from '../shared/services/reconcile-service.ts';
import { makeReconcileHandler } from './reconcile-handler.ts';

const config = readConfig(ApiConfig.pick({ TABLE_NAME: true }).and(TriggerConfig));
const logger = makeLogger('reconcile');

const triggers = new EventBridgeTriggerScheduler({
  client: makeSchedulerClient(),
  groupName: config.SCHEDULE_GROUP_NAME,
  queueArn: config.SCAN_QUEUE_ARN,
  roleArn: config.SCHEDULER_ROLE_ARN,
  deadLetterArn: config.SCHEDULER_DLQ_ARN,
  logger,
});
const reconciler = makeReconcileService({
  repo: makeDynamoDbScheduleRepository(makeDocumentClient(), config.TABLE_NAME),
  triggers,
  unrecognised: triggers,
  logger,
});

/** Invoked nightly by an EventBridge rule (repair) or by hand: `{"dry_run": true, "tenant": "acme"}`. */
export const handler = makeReconcileHandler(reconciler);
