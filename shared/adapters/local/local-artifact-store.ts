import { createHmac, timingSafeEqual } from 'node:crypto';
import { copyFile, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UPLOAD_TTL_SECONDS, type UploadInstructions } from '../../domain/artifact.ts';
import { ArtifactId } from '../../domain/ids.ts';
import { TENANT_PATTERN } from '../../domain/identity.ts';
import type { ArtifactStore, UploadTarget } from '../../ports/artifact-store.ts';

/** What a local upload token binds, like the presigned URL's signed headers in S3. */
export interface UploadGrant extends UploadTarget {
  /** Expiry, epoch seconds. */
  exp: number;
}

export interface LocalArtifactStore extends ArtifactStore {
  /** The file of `<tenant>/<id>` (both parts validated: nothing else is reachable). */
  pathOf(tenant: string, id: string): string;
  /** The grant a token carries, or null when its signature does not verify. */
  verifyToken(token: string): UploadGrant | null;
}

/**
 * The local stand-in for the S3 bucket: files under `<root>/<tenant>/<id>`, and upload URLs on the
 * local server carrying an HMAC-signed token that binds tenant, id, size, content type and expiry.
 */
export function makeLocalArtifactStore({
  root,
  baseUrl,
  signingKey,
}: {
  root: string;
  baseUrl: () => string;
  signingKey: string;
}): LocalArtifactStore {
  const sign = (payload: string) => createHmac('sha256', `artifact-upload:${signingKey}`).update(payload).digest('base64url');

  function pathOf(tenant: string, id: string): string {
    if (!TENANT_PATTERN.test(tenant) || !ArtifactId.safeParse(id).success) throw new Error(`invalid artifact key ${tenant}/${id}`);
    return join(root, tenant, id);
  }

  return {
    pathOf,

    async uploadInstructions(target, now): Promise<UploadInstructions> {
      const exp = Math.floor(now.getTime() / 1000) + UPLOAD_TTL_SECONDS;
      const payload = Buffer.from(
        JSON.stringify({
          tenant: target.tenant,
          id: target.id,
          size: target.size,
          contentType: target.contentType,
          exp,
        } satisfies UploadGrant),
      ).toString('base64url');
      return {
        method: 'PUT',
        url: `${baseUrl()}/_local/artifacts/upload?token=${payload}.${sign(payload)}`,
        headers: { 'content-type': target.contentType, 'content-length': String(target.size) },
        expires_at: new Date(exp * 1000).toISOString(),
      };
    },

    verifyToken(token) {
      const [payload, signature] = token.split('.');
      if (!payload || !signature) return null;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString()) as UploadGrant;
      } catch {
        return null;
      }
    },

    async read(tenant, id, maxBytes) {
      let handle;
      try {
        handle = await open(pathOf(tenant, id), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      try {
        const buffer = Buffer.alloc(maxBytes + 1);
        let length = 0;
        for (;;) {
          const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
          if (bytesRead === 0) break;
          length += bytesRead;
          if (length === buffer.length) break;
        }
        return buffer.subarray(0, length);
      } finally {
        await handle.close();
      }
    },

    async fetchTo(tenant, id, path) {
      await copyFile(pathOf(tenant, id), path);
    },

    async write(tenant, id, bytes) {
      const path = pathOf(tenant, id);
      await mkdir(dirname(path), { recursive: true });
      // Written aside then renamed: a reader never sees half a document.
      await writeFile(`${path}.part`, bytes, { mode: 0o600 });
      await rename(`${path}.part`, path);
    },

    async remove(tenant, id) {
      await rm(pathOf(tenant, id), { force: true });
    },
  };
}

/** Creates the folder an upload is written to. */
export async function ensureArtifactDir(store: LocalArtifactStore, tenant: string, id: string): Promise<string> {
  const path = store.pathOf(tenant, id);
  await mkdir(dirname(path), { recursive: true });
  return path;
}
