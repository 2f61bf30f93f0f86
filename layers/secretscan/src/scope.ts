import * as z from 'zod';
import { CREDENTIAL_ALIAS } from '../../../lib/credential-kinds.ts';

/** A branch name git accepts (git check-ref-format, simplified to what can be checked alone). */
const BRANCH = /^(?!\/|.*(?:\/\/|\.\.|@\{|\/\.|\.lock$|\/$|\.$))[^\s~^:?*[\\\x00-\x1f\x7f]{1,255}$/;

/**
 * secret_scan scope (DESIGN §13). Strict: a misspelt option is an error, not a silently different
 * scan. The defaults are the engine's; the API stores what the user sent.
 */
export const SecretScanScope = z.lazy(() =>
  z.strictObject({
    branch: z
      .string()
      .regex(BRANCH, 'must be a branch name')
      .optional()
      .describe("the branch to scan; default the remote's default branch"),
    history: z.boolean().optional().describe('scan every commit reachable from the branch (default true), or only its tip'),
    max_commits: z.number().int().min(1).max(100_000).optional().describe('the most commits walked, newest first (default 10000)'),
    paths_ignore: z
      .array(z.string().min(1).max(500))
      .max(200)
      .optional()
      .describe('globs of paths not scanned (e.g. "vendor/**", "**/*.snap")'),
    credential: z
      .string()
      .regex(CREDENTIAL_ALIAS, 'must be the alias of a git_token credential of the tenant (a-z, 0-9, _ and -), not a token')
      .optional()
      .describe('the alias of a git_token credential of the tenant, for a private repository (DESIGN §16)'),
  }),
);
export type SecretScanScope = z.infer<typeof SecretScanScope>;

export const DEFAULT_MAX_COMMITS = 10_000;

export interface ResolvedScope {
  branch?: string;
  history: boolean;
  maxCommits: number;
  pathsIgnore: string[];
  credential?: string;
}

export function resolveScope(scope: SecretScanScope): ResolvedScope {
  return {
    branch: scope.branch,
    history: scope.history ?? true,
    maxCommits: scope.max_commits ?? DEFAULT_MAX_COMMITS,
    pathsIgnore: scope.paths_ignore ?? [],
    credential: scope.credential,
  };
}
