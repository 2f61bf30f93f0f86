import { makeDynamoDbFindingRepository } from '../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbScanRepository } from '../shared/adapters/dynamodb/dynamodb-scan-repository.ts';
import { makeDynamoDbScheduleRepository } from '../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeCloudWatchScanLogs } from '../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { makeMailscanRunner } from '../shared/adapters/runners/mailscan-runner.ts';
import { ApiConfig, readConfig } from '../shared/config/api-config.ts';
import { ENV } from '../shared/config/environment.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import type { RunnerRegistry } from '../shared/ports/scan-runner.ts';
import { makeDispatchService } from '../shared/services/dispatch-service.ts';
import { makeScanEngine } from '../shared/services/scan-engine.ts';

/**
 * The dispatch service as both queue consumers (scan queue, scan DLQ) build it in AWS. The
 * email_security runner exists where the mailscan layer is mounted (MAILSCAN_BIN); every other
 * scan type ends `failed` with "no runner for scan_type X" (DESIGN §4).
 */
export function composeDispatch(serviceName: string) {
  const config = readConfig(ApiConfig.pick({ TABLE_NAME: true }));
  const logger = makeLogger(serviceName);
  const documents = makeDocumentClient();
  const scans = makeDynamoDbScanRepository(documents, config.TABLE_NAME);
  const schedules = makeDynamoDbScheduleRepository(documents, config.TABLE_NAME);
  const scanLogs = makeCloudWatchScanLogs(process.env.AWS_LAMBDA_LOG_GROUP_NAME ?? `/aws/lambda/${serviceName}`, logger);
  const mailscanBin = process.env[ENV.mailscanBin];
  const runners: RunnerRegistry = new Map(mailscanBin ? [['email_security', makeMailscanRunner({ bin: mailscanBin })]] : []);
  const engine = makeScanEngine({
    scans,
    findings: makeDynamoDbFindingRepository(documents, config.TABLE_NAME),
    schedules,
    runners,
    clock: systemClock,
    scanLogs,
  });
  const dispatch = makeDispatchService({ scans, schedules, engine, ids: makeUlidGenerator(), clock: systemClock, scanLogs, logger });
  return { dispatch, logger };
}
