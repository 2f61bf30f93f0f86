/**
 * `alias` of a tenant credential (DESIGN §16): `[a-z0-9][a-z0-9_-]{0,62}`, unique per tenant. A
 * leaf module (no Node built-ins), so the engines' scope schemas and the UI bundle it alone.
 */
export const CREDENTIAL_ALIAS = /^[a-z0-9][a-z0-9_-]{0,62}$/;
