import {
  ARTIFACT_TTL_DAYS,
  MAX_ARTIFACT_BYTES,
  artifactView,
  type Artifact,
  type ArtifactRecord,
  type CreateArtifactRequest,
  type UploadInstructions,
} from '../domain/artifact.ts';
import { NotFoundError } from '../domain/errors.ts';
import type { ArtifactRepository } from '../ports/artifact-repository.ts';
import type { ArtifactStore } from '../ports/artifact-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import { checkArtifactBytes } from './artifact-check.ts';
import { makeArtifactReferences } from './artifact-references.ts';

export interface ArtifactServiceDeps {
  repo: ArtifactRepository;
  store: ArtifactStore;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
}

export type ArtifactService = ReturnType<typeof makeArtifactService>;

/** Announcing an upload, reading it, the check that settles it, and the scopes' references to it. */
export function makeArtifactService({ repo, store, ids, clock, logger }: ArtifactServiceDeps) {
  return {
    async create(tenant: string, request: CreateArtifactRequest): Promise<Artifact & { upload: UploadInstructions }> {
      const now = clock.now();
      const record: ArtifactRecord = {
        id: ids.newId('art'),
        tenant,
        purpose: request.purpose,
        filename: request.filename,
        size: request.size,
        content_type: request.content_type,
        status: 'pending',
        sha256: null,
        reason: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + ARTIFACT_TTL_DAYS * 86_400_000).toISOString(),
      };
      // Instructions first: if signing fails, no row is left behind.
      const upload = await store.uploadInstructions({ tenant, id: record.id, size: record.size, contentType: record.content_type }, now);
      await repo.create(record);
      logger.info('artifact announced', { tenant, artifact_id: record.id, purpose: record.purpose, size: record.size });
      return { ...artifactView(record), upload };
    },

    async get(tenant: string, id: string): Promise<Artifact> {
      const record = await repo.get(tenant, id);
      if (!record) throw new NotFoundError(`artifact ${id} not found`);
      return artifactView(record);
    },

    /** A ready artifact's record and bytes (a scan's SBOM), or null when it is gone (expired) or not ready. */
    async content(tenant: string, id: string): Promise<{ artifact: Artifact; bytes: Buffer } | null> {
      const record = await repo.get(tenant, id);
      if (!record || record.status !== 'ready') return null;
      const bytes = await store.read(tenant, id, MAX_ARTIFACT_BYTES[record.purpose]);
      return bytes ? { artifact: artifactView(record), bytes } : null;
    },

    /**
     * Runs the check once the bytes are in the store (the S3 event, or the local upload endpoint).
     * Only a pending artifact is settled; a rejected upload's bytes are removed.
     */
    async check(tenant: string, id: string): Promise<Artifact | null> {
      const record = await repo.get(tenant, id);
      if (!record || record.status !== 'pending') return record ? artifactView(record) : null;
      const bytes = await store.read(tenant, id, MAX_ARTIFACT_BYTES[record.purpose]);
      const outcome = await checkArtifactBytes(record, bytes);
      const settled = await repo.settle(tenant, id, outcome);
      if (outcome.status === 'rejected') await store.remove(tenant, id);
      logger.info('artifact checked', { tenant, artifact_id: id, status: outcome.status, reason: outcome.reason });
      return settled ? artifactView(settled) : null;
    },

    /** Marks an upload that broke its own bounds (longer than declared) rejected without reading it. */
    async reject(tenant: string, id: string, reason: string): Promise<void> {
      await repo.settle(tenant, id, { status: 'rejected', sha256: null, reason });
      await store.remove(tenant, id);
      logger.info('artifact checked', { tenant, artifact_id: id, status: 'rejected', reason });
    },

    ...makeArtifactReferences(repo, clock),
  };
}
