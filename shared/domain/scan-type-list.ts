import * as z from 'zod';
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
export const ScanTypeList = z.lazy(() => z.object({ items: z.array(ScanTypeItem) }));

/** GET /api/scan-types/: every type, and whether this deployment has a runner for it. */
export function listScanTypes(runners: ReadonlySet<string>): z.infer<typeof ScanTypeList> {
  return {
    items: SCAN_TYPES.map((value) => ({
      value,
      label: scanTypes[value].label,
      target_hint: scanTypes[value].targetHint,
      runner_available: runners.has(value),
    })),
  };
}
