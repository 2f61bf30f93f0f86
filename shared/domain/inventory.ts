import type { ComponentChanges } from './scan-job.ts';

/**
 * Component inventories (DESIGN §15, §18): a scan output in an inventory format lists components by
 * purl, and a scan's `changes.components` compares two of them. The format is named by its content
 * type, so any engine whose manifest declares an output of this type gets the comparison.
 */
export const CYCLONEDX_JSON = 'application/vnd.cyclonedx+json';

/** Purls each list of `changes.components` keeps: 2 × 500 purls of ~100 characters stay far below the job item's 400 KB. */
export const COMPONENT_CHANGES_KEPT = 500;

export function isInventoryType(contentType: string): boolean {
  return contentType === CYCLONEDX_JSON;
}

/** The purls of a CycloneDX document's components (nested ones included), or null when it lists none in the expected shape. */
export function purlsOf(document: unknown): Set<string> | null {
  if (typeof document !== 'object' || document === null) return null;
  const top: unknown = (document as { components?: unknown }).components;
  if (!Array.isArray(top)) return null;
  const purls = new Set<string>();
  const stack: unknown[] = [...(top as unknown[])];
  while (stack.length > 0) {
    const component = stack.pop();
    if (typeof component !== 'object' || component === null) continue;
    const { purl, components } = component as { purl?: unknown; components?: unknown };
    if (typeof purl === 'string') purls.add(purl);
    if (Array.isArray(components)) stack.push(...(components as unknown[]));
  }
  return purls;
}

/**
 * What changed between the previous inventory and this one. No previous inventory (`previous`
 * null) is the first inventory: nothing is "added", the count says what it holds.
 */
export function componentChanges(
  current: ReadonlySet<string>,
  previous: { scanId: string; purls: ReadonlySet<string> } | null,
): ComponentChanges {
  const added = previous ? [...current].filter((purl) => !previous.purls.has(purl)).sort() : [];
  const removed = previous ? [...previous.purls].filter((purl) => !current.has(purl)).sort() : [];
  return {
    count: current.size,
    since_scan_id: previous?.scanId ?? null,
    added_count: added.length,
    removed_count: removed.length,
    added: added.slice(0, COMPONENT_CHANGES_KEPT),
    removed: removed.slice(0, COMPONENT_CHANGES_KEPT),
    truncated: added.length > COMPONENT_CHANGES_KEPT || removed.length > COMPONENT_CHANGES_KEPT,
  };
}
