/**
 * The email_security scan's scope (DESIGN §4), the one schema the API parses (through mailscan's
 * manifest). A leaf module of zod only: the API functions bundle it without the engine. `rua` lists
 * artifact ids of purpose rua (DMARC aggregate reports) and `header` one artifact id of purpose
 * eml; the scan and schedule services also check that each is a ready artifact of the tenant
 * (docs/artifacts.md), and the runner hands the CLI their local copies.
 */
import * as z from 'zod';

/** Adversary techniques the email_security scan executes (DESIGN §5, SPEC §2.6). */
export const ADVERSARY_TECHNIQUES = ['T1589.002', 'T1598'] as const;
export type AdversaryTechnique = (typeof ADVERSARY_TECHNIQUES)[number];

/** An artifact id as the service writes it (shared/domain/ids.ts): `art_` and a ULID. */
const ArtifactId = z.string().regex(/^art_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id of the form art_<ULID>');

/** The scope's fields, with artifacts named as `artifact` says: ids for the API, local paths for the CLI. */
function scopeFields(artifact: z.ZodString) {
  return {
    // `default` in the JSON Schema only (the UI's checkbox starts so): the parsed scope keeps what was sent.
    reputation: z.boolean().meta({ default: true }).describe('Block-lists and sender reputation (on by default).').optional(),
    discover: z.boolean().meta({ default: false }).describe('Find addresses and subdomains from CT logs and DNS.').optional(),
    leak: z.boolean().meta({ default: false }).describe('Breaches, code search and lookalike domains.').optional(),
    rua: z
      .array(artifact)
      .min(1)
      .max(20)
      .meta({ title: 'DMARC aggregate reports' })
      .describe('XML, .zip or .gz as reporters send them; up to 20 files, 25 MiB each.')
      .optional(),
    header: artifact
      .meta({ title: 'Message (.eml)' })
      .describe('One message with its full headers, up to 50 MiB; its Received chain, DKIM and ARC are checked.')
      .optional(),
    dkim_selectors: z
      .array(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
          // Names the value: "DKIM selectors include "bad!", which is not a selector (…)" in the form.
          error: (issue) =>
            `include ${JSON.stringify(String(issue.input).slice(0, 64))}, which is not a selector (letters, digits and ._- only)`,
        }),
      )
      .max(50)
      .describe('The DKIM selectors to look up besides the common ones (e.g. selector1, google).')
      .optional(),
    /** Set only by the dispatcher for an adversary step; the API refuses it. */
    techniques: z.array(z.enum(ADVERSARY_TECHNIQUES)).min(1).max(ADVERSARY_TECHNIQUES.length).optional(),
  };
}

export const EmailSecurityScope = z.lazy(() => z.strictObject(scopeFields(ArtifactId)));

/**
 * The scope file the one runner writes for `mailscan scan --scope-json` (docs/engine-contract.md):
 * the same fields, each artifact as the path of the local copy the runner fetched for this run.
 */
export const EmailSecurityScopeFile = z.lazy(() => z.strictObject(scopeFields(z.string().min(1).max(4096))));
export type EmailSecurityScope = z.infer<typeof EmailSecurityScope>;
