import * as z from 'zod';

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** A tenant id (DESIGN §3): the schema name, also the first part of every key and object path. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const TenantId = z.string().regex(TENANT_PATTERN);

/** Who is calling: taken only from a verified session token. */
export const Identity = z.lazy(() =>
  z.object({
    sub: z.string().min(1).max(256),
    tenant: TenantId,
    role: Role,
  }),
);
export type Identity = z.infer<typeof Identity>;

const rank: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** viewer reads; operator also creates, edits, runs, toggles; admin also deletes. */
export function roleAllows(role: Role, required: Role): boolean {
  return rank[role] >= rank[required];
}

/** GET /api/me: who the session is and until when (ISO 8601). Built at first use: a response only. */
export const Me = z.lazy(() => Identity.unwrap().extend({ expires_at: z.string() }));
export type Me = z.infer<typeof Me>;
