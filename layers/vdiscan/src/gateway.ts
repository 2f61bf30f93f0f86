/**
 * Desktop gateways (DESIGN §21): Citrix Gateway, VMware Horizon, RD Web Access, RD Gateway and
 * Apache Guacamole, recognised by the login pages and files they serve without authentication.
 * GET requests only, to the vetted address (no second lookup), over HTTPS and else plain HTTP,
 * bodies and time bounded, redirects not followed (a Location is evidence, not a place to go). No
 * login form is submitted, no credential or exploit path is sent (no Citrix path traversal, no
 * Log4Shell header).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { ReportBuilder } from '../../../lib/report.ts';
import { BULLETINS, bulletinsFor, severityOfCvss } from './bulletins.ts';
import { VDI_RULES } from './catalogue.ts';
import { endpointLabel, type PortContext } from './link.ts';

const MAX_BODY = 256 * 1024;

export interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One GET to the vetted address; rejects on no answer. */
export function get(context: PortContext, scheme: 'https' | 'http', path: string): Promise<Page> {
  return new Promise((resolve, reject) => {
    const host = isIP(context.host) === 6 ? `[${context.host}]` : context.host;
    const options = {
      host: context.address.address,
      family: context.address.family,
      port: context.port,
      path,
      method: 'GET',
      headers: { Host: `${host}:${context.port}`, 'User-Agent': 'vdiscan', Accept: '*/*', Connection: 'close' },
      signal: context.signal,
      timeout: context.readTimeoutMs,
      agent: false as const,
    };
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY) {
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('close', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', () => {});
    };
    const req =
      scheme === 'https'
        ? httpsRequest({ ...options, rejectUnauthorized: false, servername: isIP(context.host) ? undefined : context.host }, onResponse)
        : httpRequest(options, onResponse);
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${context.readTimeoutMs} ms`)), context.readTimeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${context.readTimeoutMs} ms`)));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

export interface Gateway {
  product: 'citrix' | 'horizon' | 'rdweb' | 'rdgateway' | 'guacamole';
  name: string;
  path: string;
  version?: string;
  /** Horizon's info.jsp fields that disclose something. */
  disclosed?: Record<string, string>;
}

const title = (body: string): string => /<title[^>]*>([^<]{0,200})<\/title>/i.exec(body)?.[1]?.trim() ?? '';

/** The requests made on a port, and what each page tells. */
export const PROBES: ReadonlyArray<{ path: string; recognise: (page: Page) => Gateway | null }> = [
  {
    path: '/vpn/index.html',
    recognise: (page) =>
      page.status === 200 && /(Citrix|NetScaler) (Gateway|Access Gateway|ADC)/i.test(page.body)
        ? { product: 'citrix', name: 'Citrix Gateway', path: '/vpn/index.html' }
        : null,
  },
  {
    path: '/logon/LogonPoint/tmindex.html',
    recognise: (page) =>
      page.status === 200 && /(Citrix|NetScaler) Gateway|ctxs\.|_ctxstxt_/i.test(page.body)
        ? { product: 'citrix', name: 'Citrix Gateway', path: '/logon/LogonPoint/tmindex.html' }
        : null,
  },
  {
    path: '/portal/info.jsp',
    recognise: (page) => {
      if (page.status !== 200) return null;
      let info: unknown;
      try {
        info = JSON.parse(page.body);
      } catch {
        return null;
      }
      if (info === null || typeof info !== 'object' || Array.isArray(info)) return null;
      const record = info as Record<string, unknown>;
      if (!('clientIPAddress' in record) && !('clientVersion' in record) && record.contextPath !== '/portal') return null;
      const disclosed: Record<string, string> = {};
      for (const key of ['clientIPAddress', 'clientVersion', 'buildNumber', 'version']) {
        if (typeof record[key] === 'string' && record[key]) disclosed[key] = record[key];
      }
      return {
        product: 'horizon',
        name: 'VMware Horizon',
        path: '/portal/info.jsp',
        ...(disclosed.clientVersion ? { version: disclosed.clientVersion } : {}),
        disclosed,
      };
    },
  },
  {
    path: '/portal/webclient/index.html',
    recognise: (page) =>
      page.status === 200 && /VMware Horizon/i.test(title(page.body))
        ? { product: 'horizon', name: 'VMware Horizon', path: '/portal/webclient/index.html' }
        : null,
  },
  {
    path: '/RDWeb/Pages/en-US/login.aspx',
    recognise: (page) =>
      page.status === 200 && /RD Web Access|Remote Desktop Web Access|RemoteApp and Desktop Connection/i.test(page.body)
        ? { product: 'rdweb', name: 'RD Web Access', path: '/RDWeb/Pages/en-US/login.aspx' }
        : null,
  },
  {
    // RD Gateway's HTTP transport answers its RPC-over-HTTP path with 401 and Negotiate/NTLM before any login.
    path: '/remoteDesktopGateway/',
    recognise: (page) => {
      const auth = [page.headers['www-authenticate'] ?? []].flat().join(', ');
      return page.status === 401 && /\b(Negotiate|NTLM)\b/.test(auth)
        ? { product: 'rdgateway', name: 'RD Gateway', path: '/remoteDesktopGateway/' }
        : null;
    },
  },
  {
    path: '/guacamole/translations/en.json',
    recognise: (page) => {
      if (page.status !== 200) return null;
      try {
        const app = (JSON.parse(page.body) as { APP?: { NAME?: unknown; VERSION?: unknown } }).APP;
        if (typeof app?.NAME !== 'string' || !/Guacamole/i.test(app.NAME)) return null;
        const version = typeof app.VERSION === 'string' && /^\d+(\.\d+)*$/.test(app.VERSION) ? app.VERSION : undefined;
        return { product: 'guacamole', name: 'Apache Guacamole', path: '/guacamole/', ...(version ? { version } : {}) };
      } catch {
        return null;
      }
    },
  },
];

export interface GatewayFacts {
  scheme: 'https' | 'http';
  gateways: Gateway[];
}

/**
 * Probes the port's pages. Returns null when the port speaks neither HTTPS nor HTTP. A page that
 * fails once the scheme answered is an error for the gateway rules.
 */
export async function probeGateways(context: PortContext): Promise<GatewayFacts | null> {
  let scheme: 'https' | 'http' | null = null;
  const pages: Array<Page | null> = [];
  for (const candidate of ['https', 'http'] as const) {
    try {
      pages.push(await get(context, candidate, PROBES[0].path));
      scheme = candidate;
      break;
    } catch {
      // Not this scheme.
    }
  }
  if (scheme === null) return null;
  const chosen = scheme;
  const rest = await Promise.all(PROBES.slice(1).map((probe) => get(context, chosen, probe.path)));
  pages.push(...rest);
  const found = new Map<string, Gateway>();
  PROBES.forEach((probe, i) => {
    const page = pages[i];
    const gateway = page ? probe.recognise(page) : null;
    if (!gateway) return;
    const known = found.get(gateway.product);
    found.set(gateway.product, known ? { ...known, ...gateway, path: known.path, version: known.version ?? gateway.version } : gateway);
  });
  return { scheme: chosen, gateways: [...found.values()] };
}

export function recordGatewayVerdicts(report: ReportBuilder, context: Pick<PortContext, 'host' | 'port'>, facts: GatewayFacts): void {
  const label = endpointLabel(context);
  const base = { fingerprint_key: label, subject: label, locations: [`tcp:${label}`] };
  if (facts.gateways.length === 0) {
    const detail = `${label} (${facts.scheme}) serves no Citrix Gateway, Horizon, RD Web, RD Gateway or Guacamole page`;
    report.pass(VDI_RULES.gatewayDetected, detail);
    report.skip([VDI_RULES.gatewayVulnerable, VDI_RULES.horizonInfo], `${label}: no gateway found`);
    return;
  }
  let versioned = 0;
  for (const gateway of facts.gateways) {
    const evidence = { endpoint: label, product: gateway.name, version: gateway.version ?? null, path: gateway.path, scheme: facts.scheme };
    report.fail(VDI_RULES.gatewayDetected, {
      ...base,
      fingerprint_key: `${label}|${gateway.product}`,
      detail: `${label} serves a ${gateway.name} login${gateway.version ? ` (version ${gateway.version})` : ''}.`,
      evidence,
    });
    if (gateway.version !== undefined && !BULLETINS.some((b) => b.product === gateway.product)) {
      report.skip(
        VDI_RULES.gatewayVulnerable,
        `${gateway.name} ${gateway.version} on ${label}: the bulletin table has no ${gateway.name} entries`,
      );
      versioned += 1;
    } else if (gateway.version !== undefined) {
      versioned += 1;
      const hits = bulletinsFor(gateway.product, gateway.version);
      for (const bulletin of hits) {
        report.fail(VDI_RULES.gatewayVulnerable, {
          ...base,
          fingerprint_key: `${label}|${gateway.product}|${bulletin.id}`,
          severity: severityOfCvss(bulletin.cvss),
          detail: `${gateway.name} ${gateway.version} on ${label} is below ${bulletin.fixed}, which fixes ${bulletin.id} (${bulletin.title}).`,
          evidence: {
            ...evidence,
            id: bulletin.id,
            fixed: bulletin.fixed,
            cvss: bulletin.cvss,
            vector: bulletin.vector,
            source: bulletin.source,
          },
        });
      }
      if (hits.length === 0)
        report.pass(VDI_RULES.gatewayVulnerable, `${gateway.name} ${gateway.version} on ${label}: no bulletin of the table applies`);
    }
    if (gateway.product === 'horizon') {
      const disclosed = gateway.disclosed ?? {};
      if (Object.keys(disclosed).length > 0) {
        report.fail(VDI_RULES.horizonInfo, {
          ...base,
          detail: `${label}/portal/info.jsp discloses ${Object.keys(disclosed).join(', ')} without authentication.`,
          evidence: { endpoint: label, path: '/portal/info.jsp', disclosed },
        });
      } else {
        report.pass(VDI_RULES.horizonInfo, `${label}: Horizon's info.jsp discloses no client address or version`);
      }
    }
  }
  if (versioned === 0) {
    report.skip(VDI_RULES.gatewayVulnerable, `${label}: ${facts.gateways.map((g) => g.name).join(', ')} show no version`);
  }
  if (!facts.gateways.some((g) => g.product === 'horizon')) report.skip(VDI_RULES.horizonInfo, `${label}: not VMware Horizon`);
}
