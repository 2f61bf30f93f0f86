import secretscan from '../../../layers/secretscan/manifest.ts';

/**
 * A legacy Secret Scan's `scan_options` as a secret_scan scope (DESIGN §13). secretscan's scope is
 * strict, so a legacy key passed through as it was would make every fire of the migrated schedule
 * a usage error; each known option becomes its counterpart, the rest are dropped with a note the
 * operator sees in the backfill summary:
 *
 * - `branches: [b]` (or `branch: b`) → `branch: b`; with several branches the first is scanned
 * - `depth: n` → `max_commits: n` (the legacy clone depth: how many commits were looked at)
 * - `include_history: bool` → `history: bool`
 * - `credential: NAME` (the operator token SECRETSCAN_TOKEN_<NAME>, retired) → `credential: name`,
 *   the tenant credential of that alias (lower case, DESIGN §16). The backfill migrates the row only
 *   when the tenant has it (a git_token allowed for the repository's host); otherwise it reports the
 *   row, naming the alias to create, and leaves the legacy task firing: a credential is never invented.
 */
export function secretScanScopeOfLegacyOptions(options: unknown): { scope: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  if (options === null || options === undefined) return { scope: {}, notes };
  if (typeof options !== 'object' || Array.isArray(options)) {
    return { scope: {}, notes: [`scan_options ${JSON.stringify(options)} is not an object and was dropped`] };
  }
  const scope: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options as Record<string, unknown>)) {
    if (key === 'branches' && Array.isArray(value) && value.length > 0) {
      scope.branch = value[0];
      if (value.length > 1) {
        notes.push(`legacy branches ${JSON.stringify(value)}: only ${JSON.stringify(value[0])} is scanned (one branch per schedule)`);
      }
    } else if (key === 'branch') scope.branch = value;
    else if (key === 'depth') scope.max_commits = value;
    else if (key === 'include_history') scope.history = value;
    else if (key === 'credential' && typeof value === 'string') scope.credential = value.trim().toLowerCase();
    else if (key !== 'branches') notes.push(`legacy scan option ${JSON.stringify(key)} has no secret_scan counterpart and was dropped`);
  }
  // A translated value secretscan would refuse (a branch name git refuses, a depth of 0) is dropped too.
  const parsed = secretscan.scope().safeParse(scope);
  if (!parsed.success) {
    for (const field of new Set(parsed.error.issues.map((issue) => String(issue.path[0])))) {
      // Dropped, the scan would run without its token and fail every fire: kept, the row is reported.
      if (field === 'credential') continue;
      notes.push(`legacy value for ${field} (${JSON.stringify(scope[field])}) is not valid for secret_scan and was dropped`);
      delete scope[field];
    }
  }
  return { scope, notes };
}
