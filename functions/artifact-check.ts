import type { S3Event } from 'aws-lambda';
import { makeDynamoDbArtifactRepository } from '../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { artifactOfKey, makeS3ArtifactStore } from '../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../shared/adapters/s3/s3-client.ts';
import { ArtifactConfig, readConfig } from '../shared/config/function-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { makeArtifactService, type ArtifactService } from '../shared/services/artifact-service.ts';
import type { Logger } from '../shared/ports/logger.ts';

/** For each object-created record: the artifact it belongs to is checked and settled (ready or rejected). */
export function makeArtifactCheckHandler(artifacts: ArtifactService, logger: Logger) {
  return async function checkUploadedArtifacts(event: S3Event): Promise<void> {
    for (const record of event.Records) {
      const artifact = artifactOfKey(record.s3.object.key);
      if (artifact === null) {
        logger.warn('object is not an artifact', { key: record.s3.object.key });
        continue;
      }
      await artifacts.check(artifact.tenant, artifact.id);
    }
  };
}

// Composition root for AWS: the bucket's object-created notification invokes this function.
const config = readConfig(ArtifactConfig);
const logger = makeLogger('artifact-check');
const artifacts = makeArtifactService({
  repo: makeDynamoDbArtifactRepository(makeDocumentClient(), config.TABLE_NAME),
  store: makeS3ArtifactStore(makeS3Client(), config.ARTIFACT_BUCKET),
  ids: makeUlidGenerator(),
  clock: systemClock,
  logger,
});

export const handler = makeArtifactCheckHandler(artifacts, logger);
