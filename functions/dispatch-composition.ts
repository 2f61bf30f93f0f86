import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbStore } from '../shared/adapters/dynamodb/dynamodb-store.ts';
import { makeDynamoDbArtifactRepository } from '../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { lazyEventBridgeClient } from '../shared/adapters/eventbridge/eventbridge-client.ts';
import { makeEventBridgePublisher } from '../shared/adapters/eventbridge/eventbridge-event-publisher.ts';
import { makeCloudWatchScanLogs } from '../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { makeEmfMetrics } from '../shared/adapters/metrics/emf-metrics.ts';
import { makeEngineRunners } from '../shared/adapters/runners/engine-registry.ts';
import { makeS3ArtifactStore } from '../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../shared/adapters/s3/s3-client.ts';
import { DispatchConfig, readConfig } from '../shared/config/function-config.ts';
import { RESOURCE_CLASSES } from '../shared/domain/resource-class.ts';
import { makeOperatorKeysLoader } from '../shared/adapters/secrets/operator-keys.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { noEvents, type EventPublisher } from '../shared/ports/event-publisher.ts';
import type { Logger } from '../shared/ports/logger.ts';
import type { RunnerRegistry } from '../shared/ports/scan-runner.ts';
import { composeDispatchService } from '../shared/services/compose/dispatch-service.ts';
import { makeDynamoDbCredentialRepository } from '../shared/adapters/dynamodb/dynamodb-credential-repository.ts';
import { makeKmsClient } from '../shared/adapters/kms/kms-client.ts';
import { makeKmsKeyWrapper } from '../shared/adapters/kms/kms-key-wrapper.ts';
import { withCredential } from '../shared/adapters/runners/credential-resolving-runner.ts';
import { withCredentialTarget } from '../shared/adapters/runners/credential-target-runner.ts';
import { makeCredentialOpener, type CredentialOpener } from '../shared/services/credential-opener.ts';

/**
 * Where scans publish scan.finished and the issue events: the stack's bus when EVENT_BUS_NAME names
 * one (dispatch), else nowhere (the dead-letter function closes jobs without running them).
 */
export function eventPublisherOf(
  busName: string | undefined,
  logger: Logger,
  client: Parameters<typeof makeEventBridgePublisher>[0]['client'] = lazyEventBridgeClient(),
): EventPublisher {
  return busName ? makeEventBridgePublisher({ busName, client, logger }) : noEvents;
}

/**
 * The dispatch service as both queue consumers (scan queue, scan DLQ) build it in AWS. Every engine
 * of layers/manifests.ts has a runner where the engines' layer is mounted (ENGINES_DIR); without it
 * every scan type ends `failed` with "no runner for scan_type X" (DESIGN §4).
 */
export function composeDispatch(serviceName: string) {
  const config = readConfig(DispatchConfig);
  const logger = makeLogger(serviceName);
  const scanLogs = makeCloudWatchScanLogs(config.AWS_LAMBDA_LOG_GROUP_NAME ?? `/aws/lambda/${serviceName}`, logger);
  // Operator keys: read from their secret at the first scan of this instance, handed to mailscan's
  // environment only (DESIGN §10). Without the variable (local, tests) the scanner gets none.
  const operatorKeys = config.OPERATOR_KEYS_SECRET_ARN
    ? makeOperatorKeysLoader({ secretId: config.OPERATOR_KEYS_SECRET_ARN, logger })
    : undefined;
  // The runners read the scope's artifacts from the bucket; where they run, the bucket must be set.
  if (config.ENGINES_DIR && !config.ARTIFACT_BUCKET) throw new Error('invalid configuration: ARTIFACT_BUCKET');
  const artifactStore = config.ARTIFACT_BUCKET ? makeS3ArtifactStore(makeS3Client(), config.ARTIFACT_BUCKET) : null;
  const documents = makeDocumentClient();
  // The tenant vault (DESIGN §16): a scope's credential is decrypted for its run (KMS Decrypt only).
  const opener: CredentialOpener = config.CREDENTIAL_KEY_ARN
    ? makeCredentialOpener({
        repo: makeDynamoDbCredentialRepository(documents, config.TABLE_NAME),
        wrapper: makeKmsKeyWrapper(makeKmsClient(), config.CREDENTIAL_KEY_ARN),
        clock: systemClock,
      })
    : {
        open: async (_tenant, alias) => {
          throw new Error(`credential ${alias} cannot be opened: this function has no vault key (CREDENTIAL_KEY_ARN)`);
        },
      };
  const store = makeDynamoDbStore(documents, config.TABLE_NAME);
  // nhi's target is a credential: opened for the run with the tenant's open secret hashes (DESIGN §20).
  const targetSources = { issues: store.issues, findings: store.findings, scans: store.scans, clock: systemClock };
  const runners: RunnerRegistry = new Map(
    config.ENGINES_DIR && artifactStore
      ? [
          ...makeEngineRunners({
            binDir: config.ENGINES_DIR,
            operatorKeys,
            allowPrivate: config.ALLOW_PRIVATE_TARGETS,
            artifacts: artifactStore,
          }),
        ].map(([type, runner]) => [type, withCredentialTarget(withCredential(runner, opener), opener, targetSources)] as const)
      : [],
  );
  const metrics = makeEmfMetrics({ environment: config.APP_ENV ?? 'unknown' });
  const dispatch = composeDispatchService(
    {
      ...store,
      clock: systemClock,
      ids: makeUlidGenerator(),
      logger,
      runnerTypes: new Set(runners.keys()),
    },
    {
      runners,
      scanLogs,
      metrics,
      // The class whose queue this function consumes: its scans end at the class's deadline
      // (timeout − margin; standard 4 min 50 s, long 14 min), partial with what they found.
      marginMs: RESOURCE_CLASSES[config.RESOURCE_CLASS].marginSeconds * 1000,
      events: eventPublisherOf(config.EVENT_BUS_NAME, logger),
      // A scan's documents (an SBOM) become artifacts of its tenant: bytes in the bucket, rows in the table.
      ...(artifactStore
        ? {
            outputs: {
              store: artifactStore,
              repo: makeDynamoDbArtifactRepository(documents, config.TABLE_NAME),
              ids: makeUlidGenerator(),
            },
          }
        : {}),
    },
  );
  return { dispatch, logger, metrics };
}
