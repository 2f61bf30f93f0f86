import * as z from 'zod';
import { fileNameText } from './text.ts';

export { ArtifactId } from './ids.ts';

/** What a client may upload (POST /api/artifacts/). */
export const UploadPurpose = z.enum(['rua', 'eml']);
export type UploadPurpose = z.infer<typeof UploadPurpose>;
/** Uploads, and the documents scans produce (`sbom`: written by the scan engine, never uploaded). */
export const ArtifactPurpose = z.enum(['rua', 'eml', 'sbom']);
export type ArtifactPurpose = z.infer<typeof ArtifactPurpose>;
export const ArtifactStatus = z.enum(['pending', 'ready', 'rejected']);
export type ArtifactStatus = z.infer<typeof ArtifactStatus>;

const MIB = 1024 * 1024;
/** Declared size ceilings (DESIGN §4): the mailscan surfaces bound their input at the same sizes. */
export const MAX_ARTIFACT_BYTES: Record<ArtifactPurpose, number> = { rua: 25 * MIB, eml: 50 * MIB, sbom: 64 * MIB };
/** Content types a client may declare per purpose; the bytes are checked anyway (the kind check). */
export const ARTIFACT_CONTENT_TYPES: Record<ArtifactPurpose, readonly string[]> = {
  rua: [
    'application/xml',
    'text/xml',
    'application/zip',
    'application/x-zip-compressed',
    'application/gzip',
    'application/x-gzip',
    'application/octet-stream',
  ],
  eml: ['message/rfc822', 'text/plain', 'application/octet-stream'],
  sbom: ['application/vnd.cyclonedx+json'],
};
export const ARTIFACT_TTL_DAYS = 30;
export const UPLOAD_TTL_SECONDS = 15 * 60;

// Object schemas are z.lazy, built at their first parse: a Lambda function builds at cold start
// none of the request schemas its first request does not need (docs/cold-start.md).

/** POST /api/artifacts/ body. */
export const CreateArtifactRequest = z.lazy(() =>
  z
    .strictObject({
      purpose: UploadPurpose,
      filename: fileNameText(255),
      size: z.number().int().min(1),
      content_type: z
        .string()
        .min(1)
        .max(100)
        .transform((value) => value.toLowerCase()),
    })
    .superRefine((request, context) => {
      if (request.size > MAX_ARTIFACT_BYTES[request.purpose]) {
        context.addIssue({
          code: 'custom',
          path: ['size'],
          message: `must be at most ${MAX_ARTIFACT_BYTES[request.purpose]} bytes for purpose ${request.purpose}`,
        });
      }
      if (!ARTIFACT_CONTENT_TYPES[request.purpose].includes(request.content_type)) {
        context.addIssue({
          code: 'custom',
          path: ['content_type'],
          message: `must be one of ${ARTIFACT_CONTENT_TYPES[request.purpose].join(', ')} for purpose ${request.purpose}`,
        });
      }
    }),
);
export type CreateArtifactRequest = z.infer<typeof CreateArtifactRequest>;

// Response schemas too: the API never parses its own responses, so a Lambda function would build
// them at every cold start for nothing; the OpenAPI document and the UI build them at first use.

const artifactShape = () => ({
  id: z.string(),
  purpose: ArtifactPurpose,
  filename: z.string(),
  size: z.number().int(),
  content_type: z.string(),
  status: ArtifactStatus,
  sha256: z.string().nullable(),
  reason: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  /** A scan's output: the scan and target it belongs to. */
  scan_id: z.string().optional(),
  target: z.string().optional(),
});
export const Artifact = z.lazy(() => z.object(artifactShape()));
export type Artifact = z.infer<typeof Artifact>;

export const UploadInstructions = z.lazy(() =>
  z.object({
    method: z.literal('PUT'),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    expires_at: z.string(),
  }),
);
export type UploadInstructions = z.infer<typeof UploadInstructions>;

export const CreatedArtifact = z.lazy(() => z.object({ ...artifactShape(), upload: UploadInstructions }));

export interface ArtifactRecord extends Artifact {
  tenant: string;
}

/** Where an artifact's bytes live: built from the tenant, so another tenant's object is unreachable by construction. */
export function artifactKey(tenant: string, id: string): string {
  return `${tenant}/${id}`;
}

/** The public view of a record. */
export function artifactView(record: ArtifactRecord): Artifact {
  const { tenant: _tenant, ...view } = record;
  return view;
}
