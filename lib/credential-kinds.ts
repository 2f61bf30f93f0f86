/**
 * The names of tenant credentials (DESIGN §16) without any code: the alias pattern and the kinds.
 * A leaf module (no Node built-ins, no zod), so the engines' scope schemas and the UI bundle it
 * alone; lib/credential.ts holds the secret shapes, the host binding and the loader.
 */
import type { CredentialKind } from './engine-manifest.ts';

/** `alias`: `[a-z0-9][a-z0-9_-]{0,62}`, unique per tenant. */
export const CREDENTIAL_ALIAS = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const CREDENTIAL_KINDS = [
  'git_token',
  'http_header',
  'aws_access_key',
  'github_token',
  'gitlab_token',
  'slack_token',
  'llm_api_key',
] as const satisfies readonly CredentialKind[];

/** Kinds sent over HTTP to hosts of the tenant's choosing: `allowed_hosts` is required (at least one). */
export const HOST_BOUND_KINDS: readonly CredentialKind[] = ['git_token', 'http_header', 'llm_api_key'];
