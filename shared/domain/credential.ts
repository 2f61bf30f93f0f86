import * as z from 'zod';
import {
  CredentialAlias,
  hostPatternProblem,
  isHostBound,
  normaliseHostPattern,
  SECRET_SCHEMAS,
  type CredentialKind,
  type CredentialSecret,
} from '../../lib/credential.ts';
import { Credential, CredentialKindSchema } from './credential-wire.ts';
import type { FieldIssue } from './errors.ts';
import { descriptionText } from './text.ts';

// Object schemas are z.lazy, built at their first parse (docs/cold-start.md).

export { Credential, CredentialKindSchema, CredentialList } from './credential-wire.ts';

/** The most hosts one credential is bound to. */
export const MAX_ALLOWED_HOSTS = 50;

/**
 * A secret sealed by envelope encryption (credential-envelope.ts): a fresh data key encrypts the
 * secret with AES-256-GCM, and the master key (KMS in AWS, a key file locally) wraps the data key;
 * both are bound to `{tenant, alias}`.
 */
export interface SealedSecret {
  /** Which key wrapper sealed it: `kms` or `local`. */
  scheme: string;
  /** The master key that wrapped the data key (a KMS key ARN; `local` for the key file). */
  key_id: string;
  wrapped_key: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Stored: the wire credential, its tenant and version, and the sealed secret. */
export interface CredentialRecord extends Credential {
  tenant: string;
  version: number;
  sealed: SealedSecret;
}

export function credentialToWire(record: CredentialRecord): Credential {
  const { alias, kind, allowed_hosts, description, fingerprint, created_at, updated_at, last_used_at } = record;
  return { alias, kind, allowed_hosts, description, fingerprint, created_at, updated_at, last_used_at };
}

/** The issues of a secret for its kind, fields under `secret.`; messages never hold the value. */
export function secretIssues(kind: CredentialKind, secret: unknown): FieldIssue[] {
  const parsed = SECRET_SCHEMAS[kind]().safeParse(secret);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue) => {
    const base = ['secret', ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ field: `secret.${key}`, message: `is not a field of a ${kind} secret` }));
    return [{ field: base, message: issue.message }];
  });
}

/** The issues of `allowed_hosts` for a kind: required (non-empty) for host-bound kinds, refused for the provider kinds. */
export function allowedHostsIssues(kind: CredentialKind, hosts: readonly string[] | undefined): FieldIssue[] {
  if (!isHostBound(kind)) {
    return hosts === undefined
      ? []
      : [{ field: 'allowed_hosts', message: `is not taken by kind ${kind}: it is sent only to its provider's API` }];
  }
  if (hosts === undefined || hosts.length === 0)
    return [{ field: 'allowed_hosts', message: `is required for kind ${kind}: name the hosts it may be sent to` }];
  const issues: FieldIssue[] = [];
  hosts.forEach((host, index) => {
    const problem = hostPatternProblem(host);
    if (problem) issues.push({ field: `allowed_hosts.${index}`, message: problem });
  });
  return issues;
}

/** The entries as stored: normalised (lower case, canonical IP), without repeats. */
export function normaliseAllowedHosts(hosts: readonly string[]): string[] {
  return [...new Set(hosts.map((host) => normaliseHostPattern(host) ?? host))];
}

const HostList = () => z.array(z.string().max(300)).max(MAX_ALLOWED_HOSTS);
// The secret's shape depends on the kind: checked by secretIssues, so a wrong one is 400 on `secret.<field>`.
const SecretObject = () => z.record(z.string(), z.unknown());

/** POST /api/credentials/ body. */
export const CreateCredentialRequest = z.lazy(() =>
  z
    .strictObject({
      alias: CredentialAlias,
      kind: CredentialKindSchema,
      secret: SecretObject(),
      allowed_hosts: HostList().optional(),
      description: descriptionText(500).optional(),
    })
    .superRefine((request, context) => {
      for (const issue of [...secretIssues(request.kind, request.secret), ...allowedHostsIssues(request.kind, request.allowed_hosts)]) {
        context.addIssue({ code: 'custom', path: issue.field.split('.'), message: issue.message });
      }
    }),
);
export type CreateCredentialRequest = Omit<z.infer<typeof CreateCredentialRequest>, 'secret'> & { secret: CredentialSecret };

/** PATCH /api/credentials/{alias}/ body: `secret` rotates it; the kind and alias stay. */
export const UpdateCredentialRequest = z.lazy(() =>
  z
    .strictObject({
      secret: SecretObject(),
      allowed_hosts: HostList(),
      description: descriptionText(500).nullable(),
    })
    .partial(),
);
export type UpdateCredentialRequest = z.infer<typeof UpdateCredentialRequest>;

/** Fields a client may read but never send. */
export const READ_ONLY_CREDENTIAL_FIELDS = [
  'fingerprint',
  'created_at',
  'updated_at',
  'last_used_at',
  'tenant',
  'version',
  'sealed',
] as const;
