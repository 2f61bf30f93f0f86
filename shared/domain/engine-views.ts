import * as z from 'zod';
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { MANIFESTS } from '../../layers/manifests.ts';
import type { EngineView, EngineViews } from './scan-type-list.ts';

/**
 * Builds what GET /api/scan-types/ says of each scan type's engine (EngineView, DESIGN §11) from
 * the manifests with zod's JSON Schema converter:
 * in AWS at build time (infra/bundling/write-engine-views.ts, a file beside MetaFunction's bundle,
 * which then bundles neither the manifests nor the converter), locally at the first request.
 */
export type { EngineView, EngineViews } from './scan-type-list.ts';

/** A manifest's view: its scope schema as the JSON Schema of what a client sends (strict objects say `additionalProperties: false`). */
export function engineViewOf(manifest: EngineManifest): EngineView {
  return {
    name: manifest.name,
    status: manifest.status,
    target_kind: manifest.targetKind,
    resource_class: manifest.resourceClass,
    doc: manifest.doc,
    summary: manifest.summary,
    credential_kinds: [...(manifest.credentialKinds ?? [])],
    artifact_fields: Object.fromEntries(Object.entries(manifest.artifactFields ?? {}).map(([key, field]) => [key, { ...field }])),
    scope_schema: z.toJSONSchema(manifest.scope(), { io: 'input', unrepresentable: 'any', override: withPatternMessage }),
  };
}

/** What a zod check's definition holds of a regex with its own message (zod keeps both on `_zod.def`). */
interface RegexCheckDef {
  format?: string;
  error?: (issue: { input: unknown; code: string }) => unknown;
}

/**
 * A string's own message for its pattern, as `x-pattern-message`, so the UI says what the API
 * says when the pattern fails ("must be a host name", not zod's "must match pattern /…/"). A
 * message built from the value keeps `{{input}}` where the value goes.
 */
function withPatternMessage(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { checks?: Array<{ _zod: { def: RegexCheckDef } }> } } })._zod?.def;
  for (const check of def?.checks ?? []) {
    const { format, error } = check._zod.def;
    if (format !== 'regex' || typeof error !== 'function') continue;
    const message = error({ input: '{{input}}', code: 'invalid_format' });
    if (typeof message === 'string') ctx.jsonSchema['x-pattern-message'] = message;
  }
}

/** Every scan type's engine view, from layers/manifests.ts. */
export function engineViews(manifests: readonly EngineManifest[] = MANIFESTS): EngineViews {
  return Object.fromEntries(
    manifests.flatMap((manifest) => {
      const view = engineViewOf(manifest);
      return manifest.scanTypes.map((scanType) => [scanType, view] as const);
    }),
  );
}
