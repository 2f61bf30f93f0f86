import { CredentialAlias } from '../../lib/credential.ts';
import {
  CreateCredentialRequest,
  Credential,
  CredentialList,
  READ_ONLY_CREDENTIAL_FIELDS,
  UpdateCredentialRequest,
} from '../../shared/domain/credential.ts';
import type { Route, RouteFactory } from '../../shared/http/routes.ts';
import type { CredentialService } from '../../shared/services/credential-service.ts';

const base = '/api/credentials';
const alias = { schema: CredentialAlias, noun: 'credential' };

/**
 * The tenant's vault (DESIGN §16), served by the schedules function: tenant configuration. Writes
 * are admin; list and get also operator, for the scope forms. No route ever answers a secret.
 */
export function credentialRoutes<D extends { credentials: CredentialService }>(route: RouteFactory<D>): Route<D>[] {
  return [
    route({
      method: 'GET',
      path: `${base}/`,
      role: 'operator',
      summary: 'List the credentials (at most 100), by alias; never a secret',
      success: { status: 200, schema: CredentialList, description: 'every credential of the tenant' },
      errors: [401, 403],
      handle: async ({ identity }, { credentials }) => ({ status: 200, body: { items: await credentials.list(identity.tenant) } }),
    }),
    route({
      method: 'POST',
      path: `${base}/`,
      role: 'admin',
      summary: 'Store a credential; the secret is write-only and never answered',
      body: CreateCredentialRequest,
      readOnly: READ_ONLY_CREDENTIAL_FIELDS,
      success: { status: 201, schema: Credential, description: 'the credential without its secret; Location names it' },
      errors: [400, 401, 403, 409, 413, 415],
      handle: async ({ identity, body }, { credentials }) => {
        const created = await credentials.create(identity.tenant, body as CreateCredentialRequest);
        return { status: 201, body: created, headers: { location: `${base}/${created.alias}/` } };
      },
    }),
    route({
      method: 'GET',
      path: `${base}/{id}/`,
      role: 'operator',
      summary: 'Get a credential (without its secret)',
      id: alias,
      success: { status: 200, schema: Credential, description: 'the credential' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { credentials }) => ({ status: 200, body: await credentials.get(identity.tenant, id) }),
    }),
    route({
      method: 'PATCH',
      path: `${base}/{id}/`,
      role: 'admin',
      summary: 'Rotate the secret, or replace allowed_hosts or the description (not the alias or kind)',
      id: alias,
      body: UpdateCredentialRequest,
      readOnly: [...READ_ONLY_CREDENTIAL_FIELDS, 'alias', 'kind'],
      success: { status: 200, schema: Credential, description: 'the credential' },
      errors: [400, 401, 403, 404, 409, 413, 415],
      handle: async ({ identity, id, body }, { credentials }) => ({
        status: 200,
        body: await credentials.update(identity.tenant, id, body),
      }),
    }),
    route({
      method: 'DELETE',
      path: `${base}/{id}/`,
      role: 'admin',
      summary: 'Delete a credential; scans that name it fail from then on',
      id: alias,
      success: { status: 204, description: 'deleted' },
      errors: [401, 403, 404],
      handle: async ({ identity, id }, { credentials }) => {
        await credentials.delete(identity.tenant, id);
        return { status: 204 };
      },
    }),
  ];
}
