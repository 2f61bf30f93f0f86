import { credentialAllowsHost } from '../../lib/credential.ts';
import { manifestOfScanType } from '../../layers/manifests.ts';
import { credentialKindsFor } from '../domain/credential-kinds.ts';
import type { FieldIssue } from '../domain/errors.ts';
import type { CredentialReferences } from '../ports/credential-references.ts';
import type { CredentialRepository } from '../ports/credential-repository.ts';

// Its own module, apart from the credential service, so the scans function's bundle gets the
// metadata read without the sealing code (docs/cold-start.md).

/** The host a target reaches: a URL's host, or a `host[:port]` without its port. */
export function targetHostOf(target: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      return new URL(target).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return target;
    }
  }
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(target);
  if (bracketed) return bracketed[1];
  const hostPort = /^([^:]+):\d+$/.exec(target);
  return hostPort ? hostPort[1] : target;
}

/**
 * CredentialReferences over the credential items: the alias is looked up under the caller's
 * tenant only, so another tenant's alias reads as missing. `targets[0]` is reported on `target`,
 * the rest on `targets.<n>` (a job's extra targets, numbered as in the request).
 */
export function makeCredentialReferences(repo: CredentialRepository | undefined): CredentialReferences {
  return {
    async checkScope(tenant, scanType, scope, targets) {
      // nhi (DESIGN §20): the target is itself an alias of the tenant's vault, of a kind the engine reviews.
      if (manifestOfScanType(scanType)?.targetKind === 'credential_alias') return checkAliasTargets(tenant, scanType, targets);
      const alias = scope.credential;
      if (alias === undefined) return [];
      if (typeof alias !== 'string') return [{ field: 'scope.credential', message: 'must be the alias of a credential' }];
      const kinds = credentialKindsFor(scanType);
      if (kinds.length === 0) return [{ field: 'scope.credential', message: `is not taken by a ${scanType} scan` }];
      const record = repo ? await repo.get(tenant, alias) : null;
      if (!record) return [{ field: 'scope.credential', message: `credential ${alias} not found` }];
      if (!kinds.includes(record.kind)) {
        return [
          { field: 'scope.credential', message: `credential ${alias} is a ${record.kind}; a ${scanType} scan takes ${kinds.join(' or ')}` },
        ];
      }
      const issues: FieldIssue[] = [];
      targets.forEach((target, index) => {
        const host = targetHostOf(target);
        if (!credentialAllowsHost(record, host)) {
          issues.push({
            field: index === 0 ? 'target' : `targets.${index - 1}`,
            message: `host ${host} is not in the allowed_hosts of credential ${alias}`,
          });
        }
      });
      return issues;
    },
  };

  async function checkAliasTargets(
    tenant: string,
    scanType: Parameters<CredentialReferences['checkScope']>[1],
    targets: readonly string[],
  ) {
    const kinds = credentialKindsFor(scanType);
    const issues: FieldIssue[] = [];
    for (const [index, alias] of targets.entries()) {
      const field = index === 0 ? 'target' : `targets.${index - 1}`;
      const record = repo ? await repo.get(tenant, alias) : null;
      if (!record) issues.push({ field, message: `credential ${alias} not found` });
      else if (!kinds.includes(record.kind)) {
        issues.push({ field, message: `credential ${alias} is a ${record.kind}; a ${scanType} scan reviews ${kinds.join(', ')}` });
      }
    }
    return issues;
  }
}
