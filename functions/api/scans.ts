import { makeDynamoDbSlaRepository } from '../../shared/adapters/dynamodb/dynamodb-sla-repository.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbArtifactRepository } from '../../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { makeDynamoDbStore } from '../../shared/adapters/dynamodb/dynamodb-store.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { lazyCloudWatchLogsClient } from '../../shared/adapters/logs/cloudwatch-logs-client.ts';
import { makeCloudWatchScanLogs } from '../../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { makeS3ArtifactStore } from '../../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../../shared/adapters/s3/s3-client.ts';
import { SqsMessageQueue } from '../../shared/adapters/sqs/sqs-message-queue.ts';
import { makeSqsClient } from '../../shared/adapters/sqs/sqs-client.ts';
import { ScansConfig, byResourceClass, readConfig } from '../../shared/config/function-config.ts';
import { ENV } from '../../shared/config/environment.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeArtifactService } from '../../shared/services/artifact-service.ts';
import { composeScanService } from '../../shared/services/compose/scan-service.ts';
import { makeIssueService } from '../../shared/services/issue-service.ts';
import type { ExportStore } from '../../shared/ports/export-store.ts';
import { makeScansHandler } from './scans-handler.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { makeDynamoDbCredentialRepository } from '../../shared/adapters/dynamodb/dynamodb-credential-repository.ts';
import { makeCredentialReferences } from '../../shared/services/credential-references.ts';

// Composition root for AWS: run now, manual scans, scan and finding reads, artifacts.
const config = readConfig(ScansConfig);
const logger = makeLogger('scans');
const documents = makeDocumentClient();
const ids = makeUlidGenerator();
const s3 = makeS3Client();
const artifacts = makeArtifactService({
  repo: makeDynamoDbArtifactRepository(documents, config.TABLE_NAME),
  store: makeS3ArtifactStore(s3, config.ARTIFACT_BUCKET),
  ids,
  clock: systemClock,
  logger,
});

// One store for the scan and issue services: its repositories are stateless wrappers of the client.
const store = makeDynamoDbStore(documents, config.TABLE_NAME);
const scans = composeScanService(
  {
    ...store,
    clock: systemClock,
    ids,
    logger,
    targetPolicy: { allowPrivate: config.ALLOW_PRIVATE_TARGETS },
    runnerTypes: new Set(runnerScanTypes()),
  },
  {
    // A manual scan or run now lands on its type's class queue (DESIGN §11): SCAN_QUEUE_URL, SCAN_QUEUE_URL_LONG.
    queue: new SqsMessageQueue({
      client: makeSqsClient(),
      queueUrl: config.SCAN_QUEUE_URL,
      classQueueUrls: byResourceClass(config, ENV.scanQueueUrl),
      logger,
    }),
    // Reads each class's dispatch log group back for GET /api/scans/{id}/log/ (logs:FilterLogEvents on those alone).
    scanLogs: makeCloudWatchScanLogs(
      config.DISPATCH_LOG_GROUP,
      logger,
      lazyCloudWatchLogsClient(),
      byResourceClass(config, ENV.dispatchLogGroup),
    ),
    artifacts,
    // scope.credential is checked against the vault's items (metadata only: no KMS grant here).
    credentials: makeCredentialReferences(makeDynamoDbCredentialRepository(documents, config.TABLE_NAME)),
  },
);

const issues = makeIssueService({
  issues: store.issues,
  findings: store.findings,
  scans: store.scans,
  sla: makeDynamoDbSlaRepository(documents, config.TABLE_NAME),
  clock: systemClock,
  logger,
});

// An export past one buffered answer goes to S3 (docs/issues.md, "Export"): its multipart code is
// loaded at the first such export, never at a cold start.
let exportStore: Promise<ExportStore> | undefined;
const exports: ExportStore = {
  save: async (...args) =>
    (
      await (exportStore ??= import('../../shared/adapters/s3/s3-export-store.ts').then(({ makeS3ExportStore }) =>
        makeS3ExportStore(s3, config.ARTIFACT_BUCKET, ids, logger),
      ))
    ).save(...args),
};

export const handler = makeScansHandler({ scans, artifacts, issues, exports, logger, allowedOrigins: config.ALLOWED_ORIGINS });
