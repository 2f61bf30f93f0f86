import * as z from 'zod';
import type { TargetPolicy } from './network-policy.ts';
import { SCAN_TYPES, ScanType, scanTypes } from './scan-types.ts';

// Responses only: built at first use (the OpenAPI document, the UI), not at every cold start.
export const ScanTypeItem = z.lazy(() =>
  z.object({
    value: ScanType,
    label: z.string(),
    target_hint: z.string(),
    runner_available: z.boolean(),
  }),
);
/** Which addresses this deployment's targets may reach, so the UI checks a target as the API will. */
export const TargetPolicyView = z.lazy(() => z.object({ allow_private_networks: z.boolean(), allow_loopback: z.boolean() }));
export const ScanTypeList = z.lazy(() => z.object({ items: z.array(ScanTypeItem), target_policy: TargetPolicyView }));

/** The policy as the API reports it, back in the form the target checks take. */
export function targetPolicyOf(view: z.infer<typeof TargetPolicyView>): TargetPolicy {
  return { allowPrivate: view.allow_private_networks, allowLoopback: view.allow_loopback };
}

/** GET /api/scan-types/: every type, whether this deployment has a runner for it, and its target policy. */
export function listScanTypes(runners: ReadonlySet<string>, policy: TargetPolicy): z.infer<typeof ScanTypeList> {
  return {
    target_policy: { allow_private_networks: policy.allowPrivate, allow_loopback: policy.allowLoopback ?? false },
    items: SCAN_TYPES.map((value) => ({
      value,
      label: scanTypes[value].label,
      target_hint: scanTypes[value].targetHint,
      runner_available: runners.has(value),
    })),
  };
}
