import * as z from 'zod';
import { parsePortSpec, PortSpecError } from './ports/port-spec.ts';

/** Defaults of DESIGN §14. */
export const DEFAULT_RATE = 200;
export const DEFAULT_CONNECT_TIMEOUT_MS = 1500;

function portsIssue(value: string | readonly (number | string)[]): string | undefined {
  try {
    parsePortSpec(value);
    return undefined;
  } catch (error) {
    if (error instanceof PortSpecError) return error.message;
    throw error;
  }
}

/** What a user may set on a vm or vapt schedule or scan (the API checks scopes with it). */
const requestFields = () => ({
  /** `top100` (default), `top1000`, a text of ports and ranges ("22,80,8000-8100", the legacy Continuous Network `ports`), or a list. */
  ports: z
    .union([
      z.string().max(4096),
      z
        .array(z.union([z.number(), z.string().max(32)]))
        .min(1)
        .max(1024),
    ])
    .superRefine((value, ctx) => {
      const issue = portsIssue(value);
      if (issue) ctx.addIssue({ code: 'custom', message: issue });
    })
    .default('top100'),
  /** Connection attempts per second. */
  rate: z.number().int().min(1).max(5000).default(DEFAULT_RATE),
  connect_timeout_ms: z.number().int().min(100).max(30_000).default(DEFAULT_CONNECT_TIMEOUT_MS),
});

/** The scope of a vm or vapt job (DESIGN §14), as the API accepts it: `mode` is the runner's. */
export const NetscanRequestScope = z.lazy(() => z.strictObject(requestFields()));

/**
 * netscan's scope file: the request's fields and `mode`, the scan type the runner fires (`vm`
 * adds the OSV lookup of detected versions, `vapt` the read-only unauthenticated-access probes).
 */
export const NetscanScope = z.lazy(() => z.strictObject({ ...requestFields(), mode: z.enum(['vm', 'vapt']).default('vm') }));
export type NetscanScope = z.infer<typeof NetscanScope>;
