import type { UploadInstructions } from '../domain/artifact.ts';

/** What the upload must match: the presigned or signed URL binds both. */
export interface UploadTarget {
  tenant: string;
  id: string;
  size: number;
  contentType: string;
}

/**
 * Port: where artifact bytes live (S3 in AWS, a folder under DATA_DIR locally). Keys are always
 * `<tenant>/<id>`, built inside the adapter from both parts, never taken from a caller as a path.
 */
export interface ArtifactStore {
  /** Where and how the client PUTs the bytes; valid for UPLOAD_TTL_SECONDS. */
  uploadInstructions(target: UploadTarget, now: Date): Promise<UploadInstructions>;
  /** The stored bytes, or null when nothing arrived; reads at most `maxBytes + 1` bytes. */
  read(tenant: string, id: string, maxBytes: number): Promise<Buffer | null>;
  /** Copies the object to a local file (dispatch); throws when it does not exist. */
  fetchTo(tenant: string, id: string, path: string): Promise<void>;
  /** Stores bytes the service made itself (a scan's SBOM) under `<tenant>/<id>`. */
  write(tenant: string, id: string, bytes: Buffer, contentType: string): Promise<void>;
  remove(tenant: string, id: string): Promise<void>;
}
