/**
 * What Microsoft's unauthenticated endpoints say about a domain (DESIGN §19), as AADInternals'
 * outsider recon reads them: the OpenID configuration (tenant id, region), the user realm of one
 * fabricated address (namespace type, brand, federation host) and, for a tenant, GetCredentialType
 * for that same address (desktop SSO). No other user is asked about, and nothing signs in.
 */
import { describeFailure, jsonObject, type DomainHttp } from '../http.ts';

export interface TenantFacts {
  tenant_id: string | null;
  region: string | null;
  cloud_instance: string | null;
  namespace_type: 'Managed' | 'Federated';
  brand: string | null;
  /** From the DKIM CNAMEs' targets when they name one (filled by the engine). */
  initial_domain: string | null;
  federation_host: string | null;
  federation_protocol: string | null;
  /** The realm's AuthURL: where the federation server signs users in. */
  auth_url: string | null;
}

export type TenantAnswer =
  | { kind: 'tenant'; facts: TenantFacts; /** what could not be read although the domain is a tenant */ partial: string[] }
  | { kind: 'not_microsoft'; why: string }
  | { kind: 'error'; message: string };

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value.slice(0, 300) : null);

type OpenId = { kind: 'tenant'; tenant_id: string; region: string | null; cloud_instance: string | null } | { kind: 'unknown_tenant' };

async function readOpenId(http: DomainHttp, loginUrl: string, domain: string): Promise<OpenId> {
  const response = await http.endpoint(`${loginUrl}/${encodeURIComponent(domain)}/v2.0/.well-known/openid-configuration`);
  const body = jsonObject(response);
  if (typeof body === 'string') throw new Error(`the OpenID configuration is ${body}`);
  if (response.status === 400 && body.error === 'invalid_tenant') return { kind: 'unknown_tenant' };
  if (response.status !== 200) throw new Error(`the OpenID configuration answered HTTP ${response.status}`);
  const issuer = str(body.issuer) ?? str(body.token_endpoint) ?? '';
  const tenantId = GUID.exec(issuer)?.[0]?.toLowerCase();
  if (!tenantId) throw new Error('the OpenID configuration names no tenant id in its issuer');
  return { kind: 'tenant', tenant_id: tenantId, region: str(body.tenant_region_scope), cloud_instance: str(body.cloud_instance_name) };
}

interface Realm {
  namespace: string;
  brand: string | null;
  authUrl: string | null;
  protocol: string | null;
  cloudInstance: string | null;
}

async function readRealm(http: DomainHttp, loginUrl: string, address: string): Promise<Realm> {
  const response = await http.endpoint(`${loginUrl}/getuserrealm.srf?login=${encodeURIComponent(address)}&json=1`);
  if (response.status !== 200) throw new Error(`getuserrealm.srf answered HTTP ${response.status}`);
  const body = jsonObject(response);
  if (typeof body === 'string') throw new Error(`getuserrealm.srf answered ${body}`);
  const namespace = str(body.NameSpaceType);
  if (namespace === null) throw new Error('getuserrealm.srf answered without NameSpaceType');
  return {
    namespace,
    brand: str(body.FederationBrandName),
    authUrl: str(body.AuthURL),
    protocol: str(body.FederationProtocol),
    cloudInstance: str(body.CloudInstanceName),
  };
}

/** The tenant behind `domain`, if any: OpenID's definite "no such tenant" with the realm's `Unknown` is not Microsoft. */
export async function readTenant(http: DomainHttp, loginUrl: string, domain: string, address: string): Promise<TenantAnswer> {
  // Both asked at once: neither answer decides whether the other is needed.
  const [openIdRead, realmRead] = await Promise.allSettled([readOpenId(http, loginUrl, domain), readRealm(http, loginUrl, address)]);
  const openId = openIdRead.status === 'fulfilled' ? openIdRead.value : undefined;
  const openIdError = openIdRead.status === 'rejected' ? describeFailure('OpenID configuration', openIdRead.reason) : undefined;
  const realm = realmRead.status === 'fulfilled' ? realmRead.value : undefined;
  const realmError = realmRead.status === 'rejected' ? describeFailure('user realm', realmRead.reason) : undefined;
  const realmKnows = realm?.namespace === 'Managed' || realm?.namespace === 'Federated';
  if (openId?.kind === 'unknown_tenant' && !realmKnows) {
    if (realm?.namespace === 'Unknown') return { kind: 'not_microsoft', why: 'not a Microsoft 365 domain (no Entra ID tenant knows it)' };
    return {
      kind: 'error',
      message: `the OpenID configuration knows no tenant, and ${realmError ?? `the realm says ${realm?.namespace}`}`,
    };
  }
  if (!realmKnows) {
    return {
      kind: 'error',
      message: [openIdError, realmError ?? `the user realm says NameSpaceType ${realm?.namespace}`].filter(Boolean).join('; '),
    };
  }
  const partial = [
    openIdError,
    openId?.kind === 'unknown_tenant' ? 'the OpenID configuration knows no tenant although the realm does' : undefined,
  ].filter((value): value is string => value !== undefined);
  const authHost = realm.authUrl ? safeHost(realm.authUrl) : null;
  return {
    kind: 'tenant',
    partial,
    facts: {
      tenant_id: openId?.kind === 'tenant' ? openId.tenant_id : null,
      region: openId?.kind === 'tenant' ? openId.region : null,
      cloud_instance: (openId?.kind === 'tenant' ? openId.cloud_instance : null) ?? realm.cloudInstance,
      namespace_type: realm.namespace as 'Managed' | 'Federated',
      brand: realm.brand,
      initial_domain: null,
      federation_host: realm.namespace === 'Federated' ? authHost : null,
      federation_protocol: realm.namespace === 'Federated' ? realm.protocol : null,
      auth_url: realm.namespace === 'Federated' ? realm.authUrl : null,
    },
  };
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * Desktop SSO from GetCredentialType for the fabricated address: `true`, `false`, or a message
 * saying why the answer cannot tell (throttled, not the recorded shape).
 */
export async function readDesktopSso(http: DomainHttp, loginUrl: string, address: string): Promise<boolean | string> {
  try {
    const response = await http.endpoint(`${loginUrl}/common/GetCredentialType`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        username: address,
        isOtherIdpSupported: true,
        checkPhones: false,
        isRemoteNGCSupported: false,
        isCookieBannerShown: false,
        isFidoSupported: false,
      }),
    });
    if (response.status !== 200) return `GetCredentialType answered HTTP ${response.status}`;
    const body = jsonObject(response);
    if (typeof body === 'string') return `GetCredentialType answered ${body}`;
    if (body.ThrottleStatus === 1) return 'GetCredentialType: throttled (ThrottleStatus 1)';
    if (typeof body.IfExistsResult !== 'number') return 'GetCredentialType answered without IfExistsResult: not the recorded shape';
    const ests = body.EstsProperties;
    if (ests === undefined || ests === null) return false;
    if (typeof ests !== 'object' || Array.isArray(ests)) return 'GetCredentialType answered EstsProperties that is not an object';
    const sso = (ests as Record<string, unknown>).DesktopSsoEnabled;
    if (sso === undefined || sso === false) return false;
    if (sso === true) return true;
    return `GetCredentialType answered DesktopSsoEnabled ${JSON.stringify(sso).slice(0, 40)}`;
  } catch (error) {
    return describeFailure('GetCredentialType', error);
  }
}
