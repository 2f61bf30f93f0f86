/**
 * The federation server a federated domain's realm names (DESIGN §19): its IdP-initiated sign-on
 * page, its WS-Trust `usernamemixed` endpoints (asked with a GET: no credential, no token request)
 * and the token-signing certificate of its FederationMetadata.xml. The host is resolved through the
 * scan's resolver and vetted (DomainHttp.host). Four requests.
 */
import { signingCertificates, type SigningCertificate } from '../federation-metadata.ts';
import { describeFailure, text, type DomainHttp } from '../http.ts';

const DAY_MS = 86_400_000;
export const EXPIRY_WARNING_DAYS = 30;

export type Probe<T> = { kind: 'ok'; value: T } | { kind: 'error'; message: string };

/** Whether the IdP-initiated sign-on page is served (its sign-in form, not ADFS's "not enabled" error page). */
export async function probeIdpInitiated(http: DomainHttp, origin: string): Promise<Probe<boolean>> {
  const url = `${origin}/adfs/ls/idpinitiatedsignon.aspx`;
  try {
    const response = await http.host(url, { maxBytes: 262_144 });
    if (response.status === 200) {
      const body = text(response);
      return {
        kind: 'ok',
        value: /idp_SignInButton|idp_SignInThisSiteRadioButton|idp_RelyingPartyDropDownList|IdpInitiatedSignOn/i.test(body),
      };
    }
    if ([403, 404, 410, 503].includes(response.status)) return { kind: 'ok', value: false };
    return { kind: 'error', message: `${url} answered HTTP ${response.status}` };
  } catch (error) {
    return { kind: 'error', message: describeFailure(url, error) };
  }
}

export const USERNAMEMIXED_PATHS = ['/adfs/services/trust/2005/usernamemixed', '/adfs/services/trust/13/usernamemixed'] as const;

/**
 * The usernamemixed endpoints that answer. A WCF endpoint answers a GET with 400, 405 or 415 (or
 * a SOAP fault); a disabled one is 404 (503 behind the proxy).
 */
export async function probeUsernameMixed(http: DomainHttp, origin: string): Promise<Probe<string[]>> {
  const open: string[] = [];
  for (const path of USERNAMEMIXED_PATHS) {
    try {
      const response = await http.host(`${origin}${path}`, { maxBytes: 65_536 });
      const soap = /Envelope|soap|wsdl/i.test(text(response)) || /soap|xml/i.test(response.headers['content-type'] ?? '');
      if ([200, 400, 405, 415].includes(response.status) || (response.status === 500 && soap)) open.push(path);
      else if (![403, 404, 410, 503].includes(response.status))
        return { kind: 'error', message: `${origin}${path} answered HTTP ${response.status}` };
    } catch (error) {
      return { kind: 'error', message: describeFailure(`${origin}${path}`, error) };
    }
  }
  return { kind: 'ok', value: open };
}

/** The signing certificates, the one that lasts longest, its days left (rounded up) and whether it ends within 30 days. */
export async function readSigningCertificates(
  http: DomainHttp,
  origin: string,
  now: Date,
): Promise<Probe<{ certificates: SigningCertificate[]; latest: SigningCertificate; days_left: number; expiring: boolean }>> {
  const url = `${origin}/FederationMetadata/2007-06/FederationMetadata.xml`;
  try {
    const response = await http.host(url, { maxBytes: 1_048_576 });
    if (response.status !== 200) return { kind: 'error', message: `${url} answered HTTP ${response.status}` };
    const certificates = signingCertificates(text(response));
    if (typeof certificates === 'string') return { kind: 'error', message: `${url}: ${certificates}` };
    // During a rollover ADFS publishes the old and the new certificate: the one that lasts counts.
    const latest = certificates.reduce((a, b) => (a.not_after >= b.not_after ? a : b));
    const msLeft = Date.parse(latest.not_after) - now.getTime();
    return {
      kind: 'ok',
      value: { certificates, latest, days_left: Math.ceil(msLeft / DAY_MS), expiring: msLeft < EXPIRY_WARNING_DAYS * DAY_MS },
    };
  } catch (error) {
    return { kind: 'error', message: describeFailure(url, error) };
  }
}
