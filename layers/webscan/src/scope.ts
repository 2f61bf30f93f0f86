/**
 * The dast scan's scope (DESIGN §17), the one schema the API (through the manifest) and the CLI's
 * --scope-json both parse. Every field is optional.
 */
import * as z from 'zod';
import { CredentialAlias } from '../../../lib/credential.ts';
import { WEB_RULE_IDS } from './catalogue.ts';

/** A path glob: `*` within a segment, `**` across segments, starting with `/`. */
const PathGlob = z
  .string()
  .min(1)
  .max(300)
  .regex(/^\/[\x21-\x7e]*$/, 'must be a path glob starting with / (printable ASCII)');

export const WebScope = z.lazy(() =>
  z.strictObject({
    max_pages: z.number().int().min(1).max(2000).optional(),
    max_depth: z.number().int().min(0).max(20).optional(),
    /** Requests per second, all requests of the scan together. */
    rate: z.number().min(0.1).max(20).optional(),
    include_paths: z.array(PathGlob).max(50).optional(),
    exclude_paths: z.array(PathGlob).max(50).optional(),
    ignore: z
      .array(z.strictObject({ rule_id: z.enum(WEB_RULE_IDS), path: PathGlob, reason: z.string().min(1).max(500) }))
      .max(200)
      .describe('Findings not reported: a rule on the paths a glob matches (e.g. /static/**), with the reason')
      .optional(),
    /**
     * An `http_header` credential's alias (DESIGN §16): its header goes on every request to the
     * target's origin (the only origin webscan ever sends to), never on TRACE, whose answer echoes
     * the request.
     */
    credential: CredentialAlias.optional(),
    /** A URL on the target's origin: an OpenAPI (JSON) document whose paths seed the crawl. */
    openapi: z.url().max(2000).optional(),
    /** Enables the two safe active checks (open redirect, reflected marker). */
    active: z.boolean().optional(),
  }),
);
export type WebScope = z.infer<typeof WebScope>;

export const DEFAULTS = { max_pages: 200, max_depth: 3, rate: 5 } as const;
