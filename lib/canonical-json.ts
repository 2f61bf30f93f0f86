/**
 * The canonical JSON of a finding's evidence: what a stored fingerprint hashes when the engine gives
 * no evidence key (shared/domain/finding.ts) and what mailscan's report fingerprints hash. One
 * implementation, in lib/, so the service and the engines can never hash the same evidence apart.
 *
 * Keys of lowercase letters and underscores (every key of mailscan's evidence) ordered by code unit
 * are in localeCompare's order (test/unit/canonical-json.test.ts), without the ICU collator that a
 * process's first localeCompare builds, 6–12 ms of every scan's CPU (docs/mailscan-startup.md).
 */
const PLAIN_KEY = /^[a-z_]*$/;
const byCodeUnit = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);
const byLocale = ([a]: [string, unknown], [b]: [string, unknown]): number => a.localeCompare(b);

/** JSON with sorted keys (in localeCompare's order, as the stored fingerprints hashed them), so equal evidence always hashes alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    entries.sort(entries.every(([key]) => PLAIN_KEY.test(key)) ? byCodeUnit : byLocale);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
