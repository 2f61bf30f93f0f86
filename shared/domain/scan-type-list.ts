import * as z from 'zod';
import type { TargetPolicy } from './network-policy.ts';
import { SCAN_TYPES, ScanType, scanTypes } from './scan-types.ts';

/**
 * What GET /api/scan-types/ says of a scan type's engine (DESIGN §11): its name, `beta` or `ga`,
 * what its target is, its resource class and doc page, and its scope as JSON Schema, from which
 * the UI renders the type's options. Built from the manifests by shared/domain/engine-views.ts.
 */
export const EngineView = z.lazy(() =>
  z.object({
    name: z.string(),
    status: z.enum(['beta', 'ga']),
    target_kind: z.string(),
    resource_class: z.enum(['standard', 'long']),
    doc: z.string(),
    summary: z.string(),
    /** The credential kinds `scope.credential` may name (DESIGN §16), for the UI's credential picker. */
    credential_kinds: z.array(z.string()),
    /**
     * Scope keys that hold artifact ids (DESIGN §4) and the purpose of the files they take
     * (email_security: `rua` reports, one `header` message): the UI's file pickers, not text boxes.
     */
    artifact_fields: z.record(z.string(), z.object({ purpose: z.string(), many: z.boolean() })),
    scope_schema: z.record(z.string(), z.unknown()),
  }),
);
export type EngineView = z.infer<typeof EngineView>;
/** Engine views by scan type (DESIGN §4 wire values). */
export type EngineViews = Readonly<Record<string, EngineView>>;

// Responses only: built at first use (the OpenAPI document, the UI), not at every cold start.
export const ScanTypeItem = z.lazy(() =>
  z.object({
    value: ScanType,
    label: z.string(),
    target_hint: z.string(),
    runner_available: z.boolean(),
    /** The engine that runs the type (its status, target kind and scope as JSON Schema); null for a type without one. */
    engine: EngineView.nullable(),
  }),
);
/** Which addresses this deployment's targets may reach, so the UI checks a target as the API will. */
export const TargetPolicyView = z.lazy(() => z.object({ allow_private_networks: z.boolean(), allow_loopback: z.boolean() }));
export const ScanTypeList = z.lazy(() => z.object({ items: z.array(ScanTypeItem), target_policy: TargetPolicyView }));

/** The policy as the API reports it, back in the form the target checks take. */
export function targetPolicyOf(view: z.infer<typeof TargetPolicyView>): TargetPolicy {
  return { allowPrivate: view.allow_private_networks, allowLoopback: view.allow_loopback };
}

/**
 * GET /api/scan-types/: every type, whether this deployment has a runner for it, its engine (from
 * the manifests, shared/domain/engine-views.ts), and the target policy.
 */
export function listScanTypes(runners: ReadonlySet<string>, policy: TargetPolicy, engines: EngineViews = {}): z.infer<typeof ScanTypeList> {
  return {
    target_policy: { allow_private_networks: policy.allowPrivate, allow_loopback: policy.allowLoopback ?? false },
    items: SCAN_TYPES.map((value) => ({
      value,
      label: scanTypes[value].label,
      target_hint: scanTypes[value].targetHint,
      runner_available: runners.has(value),
      engine: engines[value] ?? null,
    })),
  };
}
