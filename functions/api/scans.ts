import { makeDynamoDbFindingRepository } from '../../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbScanRepository } from '../../shared/adapters/dynamodb/dynamodb-scan-repository.ts';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeCloudWatchScanLogs } from '../../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { SqsMessageQueue } from '../../shared/adapters/sqs/sqs-message-queue.ts';
import { makeSqsClient } from '../../shared/adapters/sqs/sqs-client.ts';
import { ApiConfig, QueueConfig, readConfig } from '../../shared/config/api-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { makeScanService } from '../../shared/services/scan-service.ts';
import { makeScansHandler } from './scans-handler.ts';

// Composition root for AWS: run now, manual scans, scan and finding reads.
const config = readConfig(ApiConfig.and(QueueConfig));
const logger = makeLogger('scans');
const documents = makeDocumentClient();
const schedules = makeDynamoDbScheduleRepository(documents, config.TABLE_NAME);

const scans = makeScanService({
  scans: makeDynamoDbScanRepository(documents, config.TABLE_NAME),
  findings: makeDynamoDbFindingRepository(documents, config.TABLE_NAME),
  schedules,
  queue: new SqsMessageQueue({ client: makeSqsClient(), queueUrl: config.SCAN_QUEUE_URL, logger }),
  ids: makeUlidGenerator(),
  clock: systemClock,
  scanLogs: makeCloudWatchScanLogs(config.DISPATCH_LOG_GROUP, logger),
  logger,
});

export const handler = makeScansHandler({ scans, logger, allowedOrigins: config.ALLOWED_ORIGINS });
