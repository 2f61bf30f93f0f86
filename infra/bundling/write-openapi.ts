import { writeFileSync } from 'node:fs';
import { routes } from '../../functions/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';

// Writes the OpenAPI document beside MetaFunction's bundle at build time (ServiceFunction's
// afterBundling hook), so the function serves a file instead of bundling every route's schemas
// and zod's JSON Schema converter (docs/cold-start.md). The function sets `info.version` from its
// SERVICE_VERSION when it serves the document (functions/api/shipped-openapi.ts), so the file, and
// the asset hash, do not change with the version.
// Usage: node write-openapi.ts <openapi.json>

/** The version written into the file; replaced when the document is served. */
const SHIPPED_VERSION_PLACEHOLDER = 'set-when-served';

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node write-openapi.ts <openapi.json>');
  writeFileSync(file, JSON.stringify(buildOpenApiDocument(SHIPPED_VERSION_PLACEHOLDER, routes)));
}
