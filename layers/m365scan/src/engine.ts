/**
 * The m365scan engine as the kit's CLI frame runs it (DESIGN §19): for the target and each of its
 * `extra_domains`, what DNS and Microsoft's unauthenticated endpoints say about the tenant. DNS
 * goes through lib/dns with M365SCAN_NAMESERVERS; Microsoft's endpoints come from
 * M365SCAN_LOGIN_URL; hosts named by DNS or the realm answer are resolved through the same
 * resolver and vetted. One fabricated address per domain, no sign-in, at most 25 requests a domain.
 * The scan keeps time back so that it always records what it saw before the frame's deadline.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { EngineDefinition, ScanContext } from '../../engine-kit/src/cli.ts';
import { CouldNotStart } from '../../engine-kit/src/cli.ts';
import type { Deadline } from '../../engine-kit/src/deadline.ts';
import { makeCachingResolver } from '../../../lib/dns/caching-resolver.ts';
import { makeRawResolver } from '../../../lib/dns/raw-resolver.ts';
import type { Resolver } from '../../../lib/dns/resolver.ts';
import { normaliseDomain } from '../../../lib/domain-name.ts';
import { lookupViaResolver } from '../../../lib/http/resolver-lookup.ts';
import { FetchError, makeSafeFetch, type HostLookup } from '../../../lib/http/safe-fetch.ts';
import type { TargetPolicy } from '../../../lib/target-policy.ts';
import { M365_RULE_IDS, catalogue, type M365RuleId } from './catalogue.ts';
import { probeIdpInitiated, probeUsernameMixed, readSigningCertificates } from './checks/adfs.ts';
import { MICROSOFT_CNAME_LABELS, readMicrosoftCname, type CnameState } from './checks/dangling.ts';
import { probeOwa } from './checks/exchange.ts';
import { initialDomainOf, isEopHost, readDkimSelector, readMx, readSpf, spfIncludesEop, type Mx } from './checks/mail-dns.ts';
import { mxMatches, readMtaSts } from './checks/mta-sts.ts';
import { readDesktopSso, readTenant, type TenantAnswer } from './checks/tenant.ts';
import { DomainHttp, policyLookup } from './http.ts';
import { Outcomes } from './outcomes.ts';
import { DEFAULT_DKIM_SELECTORS, M365Scope } from './scope.ts';
import { readSettings, type M365Settings } from './settings.ts';
import { M365SCAN_VERSION } from './version.ts';

const TENANT_RULES: readonly M365RuleId[] = [
  'm365.tenant.detected',
  'm365.seamless_sso.enabled',
  'm365.adfs.idp_initiated_signon',
  'm365.adfs.legacy_endpoint',
  'm365.adfs.signing_cert_expiring',
];
const ADFS_RULES: readonly M365RuleId[] = [
  'm365.adfs.idp_initiated_signon',
  'm365.adfs.legacy_endpoint',
  'm365.adfs.signing_cert_expiring',
];
const MAX_BODY_BYTES = 1_048_576;
/** Names of Microsoft's own services: an autodiscover CNAME to one of them is Exchange Online, not a server of the domain. */
const MICROSOFT_HOSTS =
  /(^|\.)(outlook\.com|office365\.com|office\.com|microsoft\.com|microsoftonline\.com|lync\.com|outlook\.cn|partner\.outlook\.cn)$/;

export const m365scan: EngineDefinition<M365Scope> = {
  name: 'm365scan',
  version: M365SCAN_VERSION,
  envPrefix: 'M365SCAN',
  targetHelp: 'a domain, e.g. contoso.com',
  catalogue: () => catalogue,
  scopeSchema: () => M365Scope,
  parseTarget: (raw) => {
    const domain = normaliseDomain(raw);
    return domain === null ? { ok: false, message: 'must be a domain name such as contoso.com' } : { ok: true, target: domain };
  },
  scan: scanTenant,
  defaultTimeoutSeconds: 120,
};

interface Deps {
  settings: M365Settings;
  resolver: Resolver;
  soft: Deadline;
  endpointFetch: ReturnType<typeof makeSafeFetch>;
  hostFetch: ReturnType<typeof makeSafeFetch>;
  now: () => Date;
  policy: TargetPolicy;
  progress: ScanContext<M365Scope>['progress'];
}

async function scanTenant({ target, scope, deadline, policy, report, progress, env, now }: ScanContext<M365Scope>): Promise<void> {
  const settings = await readSettings(env);
  if (typeof settings === 'string') throw new CouldNotStart(settings);
  const total = deadline.remainingMs();
  const soft = deadline.child(total - Math.min(2_000, total * 0.1));
  const resolver = makeCachingResolver(
    makeRawResolver({ servers: settings.nameservers, timeoutMs: settings.dnsTimeoutMs, attempts: 2, signal: soft.signal }),
  );
  const fetchOptions = {
    timeoutMs: settings.requestTimeoutMs,
    maxBytes: MAX_BODY_BYTES,
    allowPrivate: policy.allowPrivate,
    allowLoopback: policy.allowLoopback,
    tlsCa: settings.tlsCa,
    maxRedirects: 0,
    userAgent: `m365scan/${M365SCAN_VERSION}`,
  };
  const deps: Deps = {
    settings,
    resolver,
    soft,
    endpointFetch: makeSafeFetch({ ...fetchOptions, lookup: policyLookup(systemLookup, policy) }),
    hostFetch: makeSafeFetch({ ...fetchOptions, lookup: policyLookup(lookupViaResolver(resolver), policy) }),
    policy,
    now,
    progress,
  };
  const domains = [...new Set([target, ...(scope.extra_domains ?? []).map((domain) => normaliseDomain(domain)!)])];
  const outcomes = new Outcomes();
  const work = (async () => {
    for (const domain of domains) await scanDomain(domain, scope, deps, outcomes);
  })();
  const finished = await Promise.race([
    work.then(() => true),
    new Promise<false>((resolve) => soft.signal.addEventListener('abort', () => resolve(false), { once: true })),
  ]);
  if (!finished) work.catch(() => {});
  for (const domain of domains) outcomes.errorUnfinished(M365_RULE_IDS, domain, "the scan's deadline passed before this check finished");
  report.covered({ kind: 'mail', surfaces: domains.map((domain) => `m365:${domain}`), selectors: [], lists: [] });
  outcomes.flush(report);
}

/** The system resolver for the configured endpoints' names, in the form the vetted client takes. */
const systemLookup: HostLookup = async (hostname) => {
  try {
    const addresses = await lookup(hostname, { all: true, order: 'verbatim' });
    return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw new FetchError('host_not_found', `${hostname} does not resolve`);
    throw new FetchError('dns_failed', `${hostname}: ${code ?? 'lookup failed'}`);
  }
};

async function scanDomain(domain: string, scope: M365Scope, deps: Deps, outcomes: Outcomes): Promise<void> {
  const { resolver, settings } = deps;
  const http = new DomainHttp({
    endpointFetch: deps.endpointFetch,
    hostFetch: deps.hostFetch,
    remainingMs: () => deps.soft.remainingMs(),
    requestTimeoutMs: settings.requestTimeoutMs,
    policy: deps.policy,
  });
  // The one fabricated address of this domain: random, so it names nobody.
  const address = `m365scan-${randomBytes(6).toString('hex')}@${domain}`;
  const selectors = scope.dkim_selectors ?? [...DEFAULT_DKIM_SELECTORS];
  // The DNS checks are judged as their answers come, so a slow Microsoft endpoint never holds them back.
  const tenantRead = readTenant(http, settings.loginUrl, domain, address);
  const mxRead = readMx(resolver, domain);
  const dkimRead = Promise.all(selectors.map((selector) => readDkimSelector(resolver, domain, selector)));
  const cnamesRead = Promise.all(MICROSOFT_CNAME_LABELS.map((label) => readMicrosoftCname(resolver, `${label}.${domain}`)));
  const dnsSide = (async () => {
    const [mx, cnames] = await Promise.all([mxRead, cnamesRead]);
    judgeDangling(domain, cnames, outcomes);
    const eopMx = mx.kind === 'found' && mx.hosts.some(isEopHost);
    await Promise.all([
      judgeSpf(domain, mx, eopMx, resolver, outcomes),
      judgeMtaSts(domain, mx, resolver, http, outcomes),
      judgeExchange(domain, mx, cnames, http, outcomes),
    ]);
  })();
  const tenantSide = (async () => {
    const [tenant, mx, dkim] = await Promise.all([tenantRead, mxRead, dkimRead]);
    deps.progress('m365.tenant', { domain, tenant: tenant.kind });
    judgeDkim(domain, tenant, mx.kind === 'found' && mx.hosts.some(isEopHost), mx, dkim, outcomes);
    await judgeTenant(domain, address, scope, tenant, initialDomainOf(dkim), http, deps, outcomes);
  })();
  await Promise.all([dnsSide, tenantSide]);
  deps.progress('m365.domain_done', { domain, requests: http.requests });
}

async function judgeTenant(
  domain: string,
  address: string,
  scope: M365Scope,
  tenant: TenantAnswer,
  initialDomain: string | null,
  http: DomainHttp,
  deps: Deps,
  outcomes: Outcomes,
): Promise<void> {
  if (tenant.kind === 'not_microsoft') return outcomes.skip(TENANT_RULES, domain, tenant.why);
  if (tenant.kind === 'error') return outcomes.error(TENANT_RULES, domain, tenant.message);
  const facts = { ...tenant.facts, initial_domain: initialDomain };
  outcomes.fail('m365.tenant.detected', domain, {
    detail: `${domain} belongs to ${facts.namespace_type === 'Federated' ? 'a federated' : 'a managed'} Entra ID tenant${facts.tenant_id ? ` ${facts.tenant_id}` : ''}${facts.region ? ` (region ${facts.region})` : ''}`,
    evidence: { domain, ...facts, auth_url: undefined },
    fingerprint_key: `tenant:${domain}`,
    subject: domain,
  });
  if (tenant.partial.length > 0) outcomes.error('m365.tenant.detected', domain, tenant.partial.join('; '));

  const sso = await readDesktopSso(http, deps.settings.loginUrl, address);
  if (typeof sso === 'string') outcomes.error('m365.seamless_sso.enabled', domain, sso);
  else if (sso)
    outcomes.fail('m365.seamless_sso.enabled', domain, {
      detail: `GetCredentialType for a fabricated user of ${domain} says desktop SSO is enabled`,
      evidence: { domain, desktop_sso_enabled: true },
      fingerprint_key: `seamless_sso:${domain}`,
      subject: domain,
    });
  else outcomes.pass('m365.seamless_sso.enabled', domain, 'desktop SSO is not enabled');

  if (facts.namespace_type === 'Managed') return outcomes.skip(ADFS_RULES, domain, 'the domain is managed: no federation server');
  if (scope.adfs === false) return outcomes.skip(ADFS_RULES, domain, 'scope.adfs is false');
  let origin: string;
  try {
    const url = new URL(tenant.facts.auth_url ?? '');
    if (url.protocol !== 'https:') throw new Error('not https');
    origin = url.origin;
  } catch {
    return outcomes.error(
      ADFS_RULES,
      domain,
      `the realm names no https federation server (AuthURL ${JSON.stringify(tenant.facts.auth_url)})`,
    );
  }
  const [idp, legacy, signing] = await Promise.all([
    probeIdpInitiated(http, origin),
    probeUsernameMixed(http, origin),
    readSigningCertificates(http, origin, deps.now()),
  ]);
  const host = new URL(origin).host;
  if (idp.kind === 'error') outcomes.error('m365.adfs.idp_initiated_signon', domain, idp.message);
  else if (idp.value)
    outcomes.fail('m365.adfs.idp_initiated_signon', domain, {
      detail: `${host} serves /adfs/ls/idpinitiatedsignon.aspx`,
      evidence: { federation_host: host, url: `${origin}/adfs/ls/idpinitiatedsignon.aspx` },
      fingerprint_key: `${host}/adfs/ls/idpinitiatedsignon.aspx`,
    });
  else outcomes.pass('m365.adfs.idp_initiated_signon', domain, `${host}: the IdP-initiated page is not served`);
  if (legacy.kind === 'error') outcomes.error('m365.adfs.legacy_endpoint', domain, legacy.message);
  else if (legacy.value.length > 0)
    for (const path of legacy.value)
      outcomes.fail('m365.adfs.legacy_endpoint', domain, {
        detail: `${host}${path} answers from outside (no credential was sent)`,
        evidence: { federation_host: host, endpoint: path },
        fingerprint_key: `${host}${path}`,
      });
  else outcomes.pass('m365.adfs.legacy_endpoint', domain, `${host}: no usernamemixed endpoint answers`);
  if (signing.kind === 'error') outcomes.error('m365.adfs.signing_cert_expiring', domain, signing.message);
  else if (signing.value.expiring) {
    const { latest, days_left } = signing.value;
    const expired = Date.parse(latest.not_after) <= deps.now().getTime();
    outcomes.fail('m365.adfs.signing_cert_expiring', domain, {
      detail: expired
        ? `the token-signing certificate of ${host} expired on ${latest.not_after}`
        : `the token-signing certificate of ${host} expires on ${latest.not_after} (${days_left} days)`,
      severity: expired ? 'high' : 'medium',
      evidence: { federation_host: host, ...latest, days_left, certificates: signing.value.certificates.length },
      fingerprint_key: `${host}:token-signing:${latest.sha1_thumbprint}`,
      subject: `${host} token-signing certificate`,
    });
  } else
    outcomes.pass(
      'm365.adfs.signing_cert_expiring',
      domain,
      `${host}: the token-signing certificate lasts ${signing.value.days_left} days`,
    );
}

async function judgeSpf(domain: string, mx: Mx, eopMx: boolean, resolver: Resolver, outcomes: Outcomes): Promise<void> {
  const rule = 'm365.spf.no_eop_include';
  if (mx.kind === 'error') return outcomes.error(rule, domain, mx.message);
  if (!eopMx) return outcomes.pass(rule, domain, mx.kind === 'none' ? 'no MX' : 'the MX is not Exchange Online Protection');
  const spf = await readSpf(resolver, domain);
  if (spf.kind === 'error') return outcomes.error(rule, domain, spf.message);
  const finding = (detail: string, record: string | null) =>
    outcomes.fail(rule, domain, {
      detail,
      evidence: { domain, mx: mx.kind === 'found' ? mx.hosts : [], spf: record },
      fingerprint_key: `${domain} (spf)`,
    });
  if (spf.kind === 'none') return finding(`the MX of ${domain} is Exchange Online Protection but ${domain} publishes no SPF record`, null);
  const included = await spfIncludesEop(resolver, domain, spf.record);
  if (included.kind === 'unknown') return outcomes.error(rule, domain, included.message);
  if (included.kind === 'no')
    return finding(`the MX of ${domain} is Exchange Online Protection but its SPF does not include spf.protection.outlook.com`, spf.record);
  outcomes.pass(
    rule,
    domain,
    `SPF includes spf.protection.outlook.com${included.via.length > 1 ? ` via ${included.via.slice(0, -1).join(' → ')}` : ''}`,
  );
}

function judgeDkim(
  domain: string,
  tenant: TenantAnswer,
  eopMx: boolean,
  mx: Mx,
  dkim: Awaited<ReturnType<typeof readDkimSelector>>[],
  outcomes: Outcomes,
): void {
  const rule = 'm365.dkim.not_enabled';
  const errors = dkim.filter((selector) => selector.kind === 'error');
  if (errors.length > 0) return outcomes.error(rule, domain, errors.map((selector) => selector.message).join('; '));
  if (tenant.kind !== 'tenant' && !eopMx) {
    if (tenant.kind === 'not_microsoft') return outcomes.skip(rule, domain, tenant.why);
    return outcomes.error(
      rule,
      domain,
      `whether ${domain} uses Microsoft 365 is unknown (${tenant.message})${mx.kind === 'error' ? `; ${mx.message}` : ''}`,
    );
  }
  for (const selector of dkim) {
    const name = `${selector.selector}._domainkey.${domain}`;
    if (selector.kind === 'no_cname')
      outcomes.fail(rule, domain, {
        detail: `${name} is not a CNAME: DKIM signing by Microsoft 365 is not set up`,
        evidence: { domain, selector: selector.selector, cname: null },
        fingerprint_key: name,
      });
    else if (selector.kind === 'no_key')
      outcomes.fail(rule, domain, {
        detail: `${name} points to ${selector.target}, which publishes no DKIM key: signing is set up but not enabled`,
        evidence: { domain, selector: selector.selector, cname: selector.target },
        fingerprint_key: name,
      });
  }
  outcomes.pass(rule, domain, `selectors ${dkim.map((selector) => selector.selector).join(', ')} read`);
}

async function judgeMtaSts(domain: string, mx: Mx, resolver: Resolver, http: DomainHttp, outcomes: Outcomes): Promise<void> {
  const sts = await readMtaSts(resolver, http, domain);
  if (sts.kind === 'error') return outcomes.error(['m365.mta_sts.missing', 'm365.mta_sts.mx_mismatch'], domain, sts.message);
  if (sts.kind === 'missing') {
    outcomes.fail('m365.mta_sts.missing', domain, {
      detail: `${domain} has no MTA-STS: ${sts.why}`,
      evidence: { domain, why: sts.why },
      fingerprint_key: `_mta-sts.${domain}`,
    });
    return outcomes.skip('m365.mta_sts.mx_mismatch', domain, 'no MTA-STS policy');
  }
  outcomes.pass('m365.mta_sts.missing', domain, `policy ${sts.id}, mode ${sts.policy.mode}`);
  if (mx.kind === 'error') return outcomes.error('m365.mta_sts.mx_mismatch', domain, mx.message);
  if (mx.kind === 'none' || sts.policy.mode === 'none')
    return outcomes.pass('m365.mta_sts.mx_mismatch', domain, mx.kind === 'none' ? 'no MX' : 'policy mode none');
  const uncovered = mx.hosts.filter((host) => !sts.policy.mx.some((pattern) => mxMatches(pattern, host)));
  if (uncovered.length === 0)
    return outcomes.pass(
      'm365.mta_sts.mx_mismatch',
      domain,
      `the policy covers ${mx.hosts.length} MX host${mx.hosts.length === 1 ? '' : 's'}`,
    );
  outcomes.fail('m365.mta_sts.mx_mismatch', domain, {
    detail: `the MTA-STS policy of ${domain} does not cover MX ${uncovered.join(', ')}`,
    evidence: { domain, mx: mx.hosts, uncovered, policy_mx: sts.policy.mx, mode: sts.policy.mode },
    fingerprint_key: `_mta-sts.${domain} (mx)`,
    subject: `_mta-sts.${domain}`,
  });
}

function judgeDangling(domain: string, cnames: CnameState[], outcomes: Outcomes): void {
  const rule = 'm365.dns.dangling_cname';
  for (const state of cnames) {
    if (state.kind === 'error') outcomes.error(rule, domain, state.message);
    else if (state.kind === 'dangling')
      outcomes.fail(rule, domain, {
        detail: `${state.name} is a CNAME to ${state.target}, which does not exist: whoever registers it serves ${state.name}`,
        evidence: { name: state.name, target: state.target },
        fingerprint_key: state.name,
      });
  }
  outcomes.pass(rule, domain, `${cnames.length} names read`);
}

async function judgeExchange(domain: string, mx: Mx, cnames: CnameState[], http: DomainHttp, outcomes: Outcomes): Promise<void> {
  const rule = 'm365.exchange_onprem.exposed';
  const hosts: string[] = [];
  const autodiscover = cnames.find((state) => state.name === `autodiscover.${domain}`)!;
  if (autodiscover.kind === 'error') outcomes.error(rule, domain, autodiscover.message);
  else if (autodiscover.kind === 'no_cname' || (autodiscover.kind === 'resolves' && !MICROSOFT_HOSTS.test(autodiscover.target)))
    hosts.push(autodiscover.name);
  if (mx.kind === 'error') outcomes.error(rule, domain, mx.message);
  else if (mx.kind === 'found') {
    const own = mx.hosts.find((host) => !isEopHost(host) && (host === domain || host.endsWith(`.${domain}`)));
    if (own && !hosts.includes(own)) hosts.push(own);
  }
  const seen: string[] = [];
  for (const host of hosts) {
    const owa = await probeOwa(http, host);
    if (owa.kind === 'error') outcomes.error(rule, domain, owa.message);
    else if (owa.kind === 'owa')
      outcomes.fail(rule, domain, {
        detail: `${host} is an on-premises Exchange serving Outlook on the web${owa.build ? ` (build ${owa.build})` : ''}`,
        evidence: { host, build: owa.build, url: `https://${host}/owa/auth/logon.aspx` },
        fingerprint_key: `${host}:443`,
      });
    else seen.push(owa.why);
  }
  outcomes.pass(
    rule,
    domain,
    hosts.length === 0 ? 'no autodiscover or mail host of the domain to ask' : seen.join('; ') || `${hosts.join(', ')} asked`,
  );
}
