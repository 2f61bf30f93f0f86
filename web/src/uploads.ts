import { useCallback, useEffect, useRef, useState } from 'react';
import { ARTIFACT_CONTENT_TYPES, Artifact, ArtifactPurpose, CreatedArtifact, MAX_ARTIFACT_BYTES } from '../../shared/domain/artifact.ts';
import { api, ApiError } from './api.ts';

/** One file on its way to becoming an artifact (DESIGN §4): announce, PUT the bytes, wait for the check. */
export interface Upload {
  /** Local key for the list; the artifact id is known only once announced. */
  key: string;
  /** The scope key the file's id goes to (an engine's `artifact_fields`, e.g. email_security's `rua`). */
  field: string;
  purpose: ArtifactPurpose;
  filename: string;
  size: number;
  id: string | null;
  phase: 'uploading' | 'checking' | 'ready' | 'rejected' | 'failed';
  /** The check's reason (rejected) or what went wrong (failed). */
  message: string | null;
}

/** What one file of a purpose is called in a message. */
const FILE_NOUN: Record<ArtifactPurpose, string> = { rua: 'a report', eml: 'a message', sbom: 'an SBOM' };

/** Waits between looks at a checked artifact: quick first (the local server checks before answering), then up to 3 s; about a minute in all. */
export const CHECK_POLL_DELAYS_MS = [200, 400, 800, 1_600, ...Array<number>(18).fill(3_000)];

/** The content type to declare: the browser's when the purpose accepts it, else octet-stream (the check judges the bytes anyway). */
export function declaredContentType(purpose: ArtifactPurpose, file: { type: string }): string {
  const type = file.type.toLowerCase();
  return ARTIFACT_CONTENT_TYPES[purpose].includes(type) ? type : 'application/octet-stream';
}

function describe(error: unknown): string {
  if (error instanceof ApiError)
    return error.details.length ? error.details.map((detail) => `${detail.field} ${detail.message}`).join('; ') : error.message;
  return error instanceof Error ? error.message : String(error);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('removed'));
      },
      { once: true },
    );
  });
}

/** An engine's artifact fields (`artifact_fields` of GET /api/scan-types/): scope key → purpose, one file or many. */
export type ArtifactFieldsView = Readonly<Record<string, { purpose: string; many: boolean }>>;

/** The fields of purposes this client knows how to upload. */
export function uploadFields(fields: ArtifactFieldsView): Array<[key: string, purpose: ArtifactPurpose, many: boolean]> {
  return Object.entries(fields).flatMap(([key, field]) => {
    const purpose = ArtifactPurpose.safeParse(field.purpose);
    return purpose.success ? [[key, purpose.data, field.many] as [string, ArtifactPurpose, boolean]] : [];
  });
}

/**
 * Uploads chosen files as artifacts and tracks each one's phase. `scope` holds the ids of the ready
 * ones under their field (email_security: `rua` every ready report, `header` the ready message);
 * `busy` is true while any is in flight. For a one-file field a new file replaces the previous
 * one; removing a file stops its work.
 */
export function useArtifactUploads(fields: ArtifactFieldsView = {}) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const controllers = useRef(new Map<string, AbortController>());
  const sequence = useRef(0);

  useEffect(() => {
    const running = controllers.current;
    return () => running.forEach((controller) => controller.abort());
  }, []);

  const update = useCallback(
    (key: string, change: Partial<Upload>) =>
      setUploads((list) => list.map((upload) => (upload.key === key ? { ...upload, ...change } : upload))),
    [],
  );

  const run = useCallback(
    async (key: string, purpose: ArtifactPurpose, file: File, signal: AbortSignal) => {
      try {
        if (file.size > MAX_ARTIFACT_BYTES[purpose])
          throw new Error(`larger than the ${MAX_ARTIFACT_BYTES[purpose] / 1024 / 1024} MiB limit for ${FILE_NOUN[purpose]}`);
        if (file.size === 0) throw new Error('the file is empty');
        const contentType = declaredContentType(purpose, file);
        const created = await api('/api/artifacts/', CreatedArtifact, {
          method: 'POST',
          body: { purpose, filename: file.name, size: file.size, content_type: contentType },
        });
        update(key, { id: created.id });
        // Exactly the announced length and type: the URL (S3 presigned or the local signed one) binds both.
        // The browser sets Content-Length from the file itself; no cookie goes to the bucket.
        const headers = Object.fromEntries(
          Object.entries(created.upload.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
        );
        const put = await fetch(created.upload.url, { method: created.upload.method, headers, body: file, credentials: 'omit', signal });
        if (!put.ok) throw new Error(`the upload was refused (HTTP ${put.status})`);
        update(key, { phase: 'checking' });
        for (const delay of CHECK_POLL_DELAYS_MS) {
          const artifact = await api(`/api/artifacts/${encodeURIComponent(created.id)}/`, Artifact);
          if (artifact.status === 'ready') return update(key, { phase: 'ready', message: null });
          if (artifact.status === 'rejected')
            return update(key, { phase: 'rejected', message: artifact.reason ?? 'rejected by the check' });
          await pause(delay, signal);
        }
        throw new Error('not checked within a minute; try again');
      } catch (error) {
        if (signal.aborted) return;
        update(key, { phase: 'failed', message: describe(error) });
      } finally {
        controllers.current.delete(key);
      }
    },
    [update],
  );

  const remove = useCallback((key: string) => {
    controllers.current.get(key)?.abort();
    controllers.current.delete(key);
    setUploads((list) => list.filter((upload) => upload.key !== key));
  }, []);

  const add = useCallback(
    (field: string, purpose: ArtifactPurpose, many: boolean, files: File[]) => {
      const started: Upload[] = (many ? files : files.slice(0, 1)).map((file) => ({
        key: `u${++sequence.current}`,
        field,
        purpose,
        filename: file.name,
        size: file.size,
        id: null,
        phase: 'uploading',
        message: null,
      }));
      setUploads((list) => {
        // One file for a one-file field (email_security's message): a new one replaces the last.
        const kept = many ? list : list.filter((upload) => upload.field !== field);
        for (const gone of list.filter((upload) => !kept.includes(upload))) controllers.current.get(gone.key)?.abort();
        return [...kept, ...started];
      });
      started.forEach((upload, index) => {
        const controller = new AbortController();
        controllers.current.set(upload.key, controller);
        void run(upload.key, purpose, files[index], controller.signal);
      });
    },
    [run],
  );

  const ready = uploads.filter((upload) => upload.phase === 'ready' && upload.id !== null);
  const scope: Record<string, string | string[]> = {};
  for (const [key, , many] of uploadFields(fields)) {
    const ids = ready.filter((upload) => upload.field === key).map((upload) => upload.id!);
    if (ids.length) scope[key] = many ? ids : ids[ids.length - 1];
  }
  const busy = uploads.some((upload) => upload.phase === 'uploading' || upload.phase === 'checking');
  return { uploads, add, remove, scope, busy };
}
