import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbStore } from '../../shared/adapters/dynamodb/dynamodb-store.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { makeCloudWatchScanLogs } from '../../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { SqsMessageQueue } from '../../shared/adapters/sqs/sqs-message-queue.ts';
import { makeSqsClient } from '../../shared/adapters/sqs/sqs-client.ts';
import { ScansConfig, readConfig } from '../../shared/config/api-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { composeScanServices } from '../../shared/services/compose-scan-services.ts';
import { makeScansHandler } from './scans-handler.ts';

// Composition root for AWS: run now, manual scans, scan and finding reads.
const config = readConfig(ScansConfig);
const logger = makeLogger('scans');
const services = composeScanServices({
  ...makeDynamoDbStore(makeDocumentClient(), config.TABLE_NAME),
  clock: systemClock,
  ids: makeUlidGenerator(),
  logger,
});

const scans = services.scanService({
  queue: new SqsMessageQueue({ client: makeSqsClient(), queueUrl: config.SCAN_QUEUE_URL, logger }),
  scanLogs: makeCloudWatchScanLogs(config.DISPATCH_LOG_GROUP, logger),
});

export const handler = makeScansHandler({ scans, logger, allowedOrigins: config.ALLOWED_ORIGINS });
