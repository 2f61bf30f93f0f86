/**
 * The m365 scan's scope (DESIGN §19), the one schema the API (through the manifest) and the CLI's
 * --scope-json both parse. Every field is optional. No endpoint is a scope field: endpoints come
 * from the deployment's configuration only (M365SCAN_LOGIN_URL, M365SCAN_NAMESERVERS).
 */
import * as z from 'zod';
import { normaliseDomain } from '../../../lib/domain-name.ts';

const Domain = z
  .string()
  .max(253)
  .refine((value) => normaliseDomain(value) !== null, { message: 'must be a domain name such as contoso.com' });

const Selector = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/, 'a DKIM selector: letters, digits and ._- only');

export const M365Scope = z.lazy(() =>
  z.strictObject({
    /** Other domains of the tenant (Microsoft no longer lists them): each gets the same checks. */
    extra_domains: z
      .array(Domain)
      .max(10)
      .describe("Other domains of the tenant, checked the same way (Microsoft no longer lists a tenant's domains).")
      .optional(),
    /** Probe the federation server (ADFS) the realm answer names; true by default. */
    adfs: z.boolean().meta({ title: 'ADFS' }).describe('Probe the federation server a federated domain names (on by default).').optional(),
    /** DKIM selectors to check; selector1 and selector2 (Microsoft 365's) by default. */
    dkim_selectors: z
      .array(Selector)
      .min(1)
      .max(10)
      .describe("The DKIM selectors checked (Microsoft 365's selector1 and selector2 by default).")
      .optional(),
  }),
);
export type M365Scope = z.infer<typeof M365Scope>;

export const DEFAULT_DKIM_SELECTORS = ['selector1', 'selector2'] as const;
