import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { ensureArtifactDir, type LocalArtifactStore } from '../shared/adapters/local/local-artifact-store.ts';
import type { ArtifactRepository } from '../shared/ports/artifact-repository.ts';
import type { Clock } from '../shared/ports/clock.ts';
import type { RawTarget } from './http-server.ts';
import type { ArtifactService } from '../shared/services/artifact-service.ts';

export const UPLOAD_PATH = '/_local/artifacts/upload';

/** A refusal in the DESIGN §3 body shape, with S3's reasons as codes (docs/artifacts.md). */
function refuse(response: ServerResponse, status: number, code: string, message: string): true {
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify({ error: { code, message, details: [], request_id: randomUUID() } }));
  return true;
}

/**
 * The local server's stand-in for an S3 presigned PUT (DESIGN §4): the signed token binds tenant,
 * id, size, content type and expiry; a request that differs in any is refused with 403 like S3's
 * SignatureDoesNotMatch, and nothing is stored. The token works once: only a pending artifact
 * accepts bytes. Once the bytes are written, the same check as the S3 event runs.
 */
export function makeArtifactUploadEndpoint({
  store,
  repo,
  artifacts,
  clock,
}: {
  store: LocalArtifactStore;
  repo: ArtifactRepository;
  artifacts: ArtifactService;
  clock: Clock;
}) {
  const inFlight = new Set<string>();
  return async (request: IncomingMessage, response: ServerResponse, { path, query }: RawTarget): Promise<boolean> => {
    // The raw path, as sent: an encoded or dotted variant of it is no upload (and answers 404).
    if (path !== UPLOAD_PATH) return false;
    if (request.method !== 'PUT') return refuse(response, 405, 'method_not_allowed', 'uploads are PUT');
    const grant = store.verifyToken(query.get('token') ?? '');
    if (grant === null) return refuse(response, 403, 'signature_does_not_match', 'the upload token is not valid');
    if (grant.exp * 1000 < clock.now().getTime())
      return refuse(response, 403, 'request_expired', 'the upload URL has expired; announce the file again');
    if ((request.headers['content-type'] ?? '').toLowerCase() !== grant.contentType)
      return refuse(response, 403, 'signature_does_not_match', `content-type must be ${grant.contentType}, as announced`);
    const length = request.headers['content-length'];
    if (length === undefined) return refuse(response, 411, 'missing_content_length', 'content-length is required');
    if (Number(length) !== grant.size)
      return refuse(response, 403, 'signature_does_not_match', `content-length must be ${grant.size}, as announced`);
    const key = `${grant.tenant}/${grant.id}`;
    const record = await repo.get(grant.tenant, grant.id);
    if (record === null || record.status !== 'pending' || inFlight.has(key))
      return refuse(response, 403, 'upload_used', 'this upload URL was already used');
    inFlight.add(key);
    try {
      const path = await ensureArtifactDir(store, grant.tenant, grant.id);
      let received = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          callback(received > grant.size ? new Error('body longer than content-length') : null, chunk);
        },
      });
      try {
        await pipeline(request, counter, createWriteStream(path));
      } catch (error) {
        await artifacts.reject(grant.tenant, grant.id, `upload failed: ${(error as Error).message}`);
        return refuse(response, 400, 'incomplete_body', 'the upload did not complete');
      }
      const checked = await artifacts.check(grant.tenant, grant.id);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: grant.id, status: checked?.status ?? 'pending', reason: checked?.reason ?? null }));
      return true;
    } finally {
      inFlight.delete(key);
    }
  };
}
