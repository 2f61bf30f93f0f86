/** The sbom scope (DESIGN §18): strict, every field optional. */
import * as z from 'zod';

const BRANCH = /^(?!\/|.*(?:\/\/|\.\.|@\{|\/\.|\.lock$|\/$|\.$))[^\s~^:?*[\\\x00-\x1f\x7f]{1,255}$/;
/** An SPDX licence id (or a LicenseRef-). */
const SPDX_ID = /^[A-Za-z0-9][A-Za-z0-9.+-]{0,99}$/;

export const SbomScope = z.lazy(() =>
  z.strictObject({
    branch: z
      .string()
      .regex(BRANCH, 'must be a branch name')
      .optional()
      .describe("the branch whose head is read; default the remote's default branch"),
    credential: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be a credential alias')
      .optional()
      .describe('a git_token credential of the tenant, for a private repository'),
    paths_ignore: z
      .array(z.string().min(1).max(500))
      .max(200)
      .optional()
      .describe('globs of paths whose lockfiles are not read (e.g. "test/fixtures/**")'),
    include_dev: z.boolean().optional().describe('list development dependencies in the SBOM and the findings (default false)'),
    license_deny: z
      .array(z.string().regex(SPDX_ID, 'must be an SPDX licence id'))
      .max(100)
      .optional()
      .describe('SPDX ids that are not allowed (e.g. "AGPL-3.0-only")'),
    ignore: z
      .array(
        z.strictObject({
          id: z.string().min(1).max(100).describe('an advisory id or alias (GHSA-…, CVE-…)'),
          reason: z.string().min(1).max(500),
          until: z.iso.date().optional().describe('the ignore ends on this date'),
        }),
      )
      .max(500)
      .optional()
      .describe('advisories not reported (osv-scanner.toml [[IgnoredVulns]] in the repository are read too)'),
  }),
);
export type SbomScope = z.infer<typeof SbomScope>;
