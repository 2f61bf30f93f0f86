import { credentialFingerprint, isIpLiteral, normaliseHostPattern, type CredentialSecret } from '../../lib/credential.ts';
import {
  allowedHostsIssues,
  credentialToWire,
  normaliseAllowedHosts,
  secretIssues,
  type CreateCredentialRequest,
  type Credential,
  type CredentialRecord,
  type UpdateCredentialRequest,
} from '../domain/credential.ts';
import { NotFoundError, QuotaExceededError, ValidationError, type FieldIssue } from '../domain/errors.ts';
import { addressProblem, hostnameProblem, type TargetPolicy } from '../domain/network-policy.ts';
import type { Clock } from '../ports/clock.ts';
import type { CredentialRepository } from '../ports/credential-repository.ts';
import type { KeyWrapper } from '../ports/key-wrapper.ts';
import type { Logger } from '../ports/logger.ts';
import { sealSecret } from './credential-envelope.ts';

/** Credentials a tenant may hold. */
export const CREDENTIAL_QUOTA = 100;

export interface CredentialServiceDeps {
  repo: CredentialRepository;
  /** Wraps data keys (Encrypt only, in AWS): the API never opens a secret. */
  wrapper: KeyWrapper;
  clock: Clock;
  logger: Logger;
  targetPolicy: TargetPolicy;
}

export type CredentialService = ReturnType<typeof makeCredentialService>;

/**
 * The tenant's vault (DESIGN §16): create, list, get, rotate and delete credentials. The secret
 * goes in sealed and never comes out of this service: answers and log lines carry the alias,
 * kind, hosts and fingerprint only.
 */
export function makeCredentialService({ repo, wrapper, clock, logger, targetPolicy }: CredentialServiceDeps) {
  /** allowed_hosts entries the deployment's target policy refuses (an IP literal in a refused range, the metadata name). */
  function policyIssues(hosts: readonly string[]): FieldIssue[] {
    const issues: FieldIssue[] = [];
    hosts.forEach((host, index) => {
      const entry = normaliseHostPattern(host);
      if (entry === null) return;
      const problem = isIpLiteral(entry)
        ? addressProblem(entry, undefined, targetPolicy)
        : hostnameProblem(entry.replace(/^\*\./, ''), targetPolicy);
      if (problem) issues.push({ field: `allowed_hosts.${index}`, message: problem });
    });
    return issues;
  }

  async function found(tenant: string, alias: string): Promise<CredentialRecord> {
    const record = await repo.get(tenant, alias);
    if (!record) throw new NotFoundError(`credential ${alias} not found`);
    return record;
  }

  return {
    async create(tenant: string, request: CreateCredentialRequest): Promise<Credential> {
      const hosts = request.allowed_hosts ?? [];
      const issues = policyIssues(hosts);
      if (issues.length > 0) throw new ValidationError('the credential is not valid', issues);
      if ((await repo.list(tenant)).length >= CREDENTIAL_QUOTA)
        throw new QuotaExceededError(`a tenant holds at most ${CREDENTIAL_QUOTA} credentials`);
      const now = clock.now().toISOString();
      const record: CredentialRecord = {
        tenant,
        alias: request.alias,
        kind: request.kind,
        allowed_hosts: normaliseAllowedHosts(hosts),
        description: request.description ?? null,
        fingerprint: credentialFingerprint(request.kind, request.secret),
        created_at: now,
        updated_at: now,
        last_used_at: null,
        version: 1,
        sealed: await sealSecret(wrapper, request.secret, { tenant, alias: request.alias }),
      };
      await repo.create(record);
      logger.info('credential created', { tenant, alias: record.alias, kind: record.kind, fingerprint: record.fingerprint });
      return credentialToWire(record);
    },

    async list(tenant: string): Promise<Credential[]> {
      return (await repo.list(tenant)).map(credentialToWire);
    },

    async get(tenant: string, alias: string): Promise<Credential> {
      return credentialToWire(await found(tenant, alias));
    },

    /** `secret` rotates it (a new data key, a new fingerprint); `allowed_hosts` and `description` replace theirs. */
    async update(tenant: string, alias: string, patch: UpdateCredentialRequest): Promise<Credential> {
      const current = await found(tenant, alias);
      const issues = [
        ...(patch.secret === undefined ? [] : secretIssues(current.kind, patch.secret)),
        ...(patch.allowed_hosts === undefined
          ? []
          : [...allowedHostsIssues(current.kind, patch.allowed_hosts), ...policyIssues(patch.allowed_hosts)]),
      ];
      if (issues.length > 0) throw new ValidationError('the credential is not valid', issues);
      const next: CredentialRecord = {
        ...current,
        allowed_hosts: patch.allowed_hosts === undefined ? current.allowed_hosts : normaliseAllowedHosts(patch.allowed_hosts),
        description: patch.description === undefined ? current.description : patch.description,
        version: current.version + 1,
        updated_at: clock.now().toISOString(),
      };
      if (patch.secret !== undefined) {
        const secret = patch.secret as CredentialSecret;
        next.fingerprint = credentialFingerprint(current.kind, secret);
        next.sealed = await sealSecret(wrapper, secret, { tenant, alias });
      }
      await repo.update(next);
      logger.info('credential updated', { tenant, alias, fields: Object.keys(patch), fingerprint: next.fingerprint });
      return credentialToWire(next);
    },

    async delete(tenant: string, alias: string): Promise<void> {
      if (!(await repo.delete(tenant, alias))) throw new NotFoundError(`credential ${alias} not found`);
      logger.info('credential deleted', { tenant, alias });
    },
  };
}
