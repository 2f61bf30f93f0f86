/**
 * Loopback HTTPS servers speaking the recorded shapes of what m365scan reads (fixtures/recorded):
 * a login server (OpenID configuration, getuserrealm.srf, GetCredentialType) for M365SCAN_LOGIN_URL,
 * and one server on `<address>:443` for the hosts the zones name (mta-sts, the federation server,
 * OWA), routed by Host. Both count every request by the domain it concerns, so a test can hold the
 * scan to its 25 requests a domain from this side. Misbehaviours per domain or host feed the
 * bad-input tests. Microsoft itself cannot run here.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestCa } from './pki.ts';

const recorded = (name: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/recorded/${name}`, import.meta.url)), 'utf8');
const fill = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\{([A-Z_]+)\}\}/g, (_, key: string) => values[key] ?? '');

export interface Tenant {
  tenantId: string;
  region: string;
  brand: string;
  namespace: 'Managed' | 'Federated';
  /** The federation server's origin for a federated domain (`https://sts.fabrikam.test`). */
  authOrigin?: string;
  desktopSso: boolean;
}

/** What a misbehaving endpoint does instead of its recorded answer. */
export type Misbehaviour = 'huge' | 'garbage' | 'error500' | 'hang' | 'redirect_loop' | 'throttle' | 'xml_bomb';

export interface Site {
  /** path → [status, headers, body]; a function may look at the request. */
  [path: string]: [number, Record<string, string>, string] | undefined;
}

export interface MicrosoftFakes {
  loginUrl: string;
  caPem: string;
  /** Requests that concerned `domain` (login server: by the domain asked about; host server: hosts under it). */
  requestsFor(domain: string): number;
  /** The paths the login server was asked, in order (to see which address was asked about). */
  loginLog: { path: string; body: string }[];
  misbehave(key: string, how: Misbehaviour | undefined): void;
  resetCounts(): void;
  close(): Promise<void>;
}

const HUGE_BYTES = 10 * 1024 * 1024;

export async function startMicrosoftFakes(options: {
  ca: TestCa;
  /** The loopback address the host server listens on, port 443. */
  hostAddress: string;
  tenants: Record<string, Tenant>;
  sites: Record<string, Site>;
}): Promise<MicrosoftFakes> {
  const counts = new Map<string, number>();
  const loginLog: { path: string; body: string }[] = [];
  const misbehaviours = new Map<string, Misbehaviour>();
  const sockets = new Set<Duplex>();
  const count = (key: string): void => void counts.set(key, (counts.get(key) ?? 0) + 1);

  function misbehaved(key: string, res: ServerResponse, url: string): boolean {
    const how = misbehaviours.get(key);
    if (!how) return false;
    if (how === 'hang') return true; // never answers: the client's time bound must end it
    if (how === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < HUGE_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.write('{"issuer":"');
      pump();
      res.on('error', () => {});
      return true;
    }
    if (how === 'garbage')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer": "https://login.micro\u0000soft<<<>>>');
    else if (how === 'error500') res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Server Error</h1>');
    else if (how === 'redirect_loop') res.writeHead(302, { location: url }).end();
    else if (how === 'throttle')
      res.writeHead(429, { 'retry-after': '60', 'content-type': 'application/json' }).end('{"error":"throttled"}');
    else if (how === 'xml_bomb') {
      const entities = [
        '<!ENTITY lol "lol">',
        ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
      ];
      res
        .writeHead(200, { 'content-type': 'application/samlmetadata+xml' })
        .end(
          `<?xml version="1.0"?><!DOCTYPE EntityDescriptor [${entities.join('')}]><EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"><KeyDescriptor use="signing">&lol9;</KeyDescriptor></EntityDescriptor>`,
        );
    }
    return true;
  }

  function json(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  }

  async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://login.test');
    const body = await readBody(req);
    loginLog.push({ path: `${url.pathname}${url.search}`, body });
    const openId = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url.pathname);
    if (openId) {
      const domain = decodeURIComponent(openId[1]).toLowerCase();
      count(domain);
      if (misbehaved(`openid:${domain}`, res, req.url ?? '/')) return;
      const tenant = options.tenants[domain];
      if (!tenant) return json(res, 400, fill(recorded('openid-invalid-tenant.json'), { DOMAIN: domain }));
      return json(res, 200, fill(recorded('openid-configuration.json'), { TENANT_ID: tenant.tenantId, REGION: tenant.region }));
    }
    if (url.pathname === '/getuserrealm.srf') {
      const address = url.searchParams.get('login') ?? '';
      const domain = address.split('@')[1]?.toLowerCase() ?? '';
      count(domain);
      if (misbehaved(`realm:${domain}`, res, req.url ?? '/')) return;
      const tenant = options.tenants[domain];
      const values = {
        LOGIN: address,
        LOGIN_ENCODED: encodeURIComponent(address),
        DOMAIN: domain,
        BRAND: tenant?.brand ?? '',
        AUTH_ORIGIN: tenant?.authOrigin ?? '',
      };
      const template = !tenant
        ? 'getuserrealm-unknown.json'
        : tenant.namespace === 'Federated'
          ? 'getuserrealm-federated.json'
          : 'getuserrealm-managed.json';
      return json(res, 200, fill(recorded(template), values));
    }
    if (url.pathname === '/common/GetCredentialType' && req.method === 'POST') {
      let address = '';
      try {
        address = String((JSON.parse(body) as { username?: string }).username ?? '');
      } catch {
        return json(res, 400, '{"error":"bad request"}');
      }
      const domain = address.split('@')[1]?.toLowerCase() ?? '';
      count(domain);
      if (misbehaved(`credtype:${domain}`, res, req.url ?? '/')) return;
      const tenant = options.tenants[domain];
      const answer = JSON.parse(fill(recorded('getcredentialtype.json'), { LOGIN: address })) as {
        Credentials: Record<string, unknown>;
        EstsProperties: Record<string, unknown>;
      };
      if (tenant?.namespace === 'Federated') {
        answer.EstsProperties.DomainType = 4;
        answer.Credentials.FederationRedirectUrl = `${tenant.authOrigin}/adfs/ls/?username=${encodeURIComponent(address)}`;
      }
      if (tenant?.desktopSso) answer.EstsProperties.DesktopSsoEnabled = true;
      return json(res, 200, JSON.stringify(answer));
    }
    res.writeHead(404).end();
  }

  async function host(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await readBody(req);
    const name = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    count(`host:${name}`);
    const path = (req.url ?? '/').split('?')[0];
    if (misbehaved(`${name}${path}`, res, req.url ?? '/')) return;
    const answer = options.sites[name]?.[path];
    if (!answer) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    res.writeHead(answer[0], answer[1]).end(answer[2]);
  }

  const names = ['login.test', ...Object.keys(options.sites)];
  const { certPem, keyPem } = await options.ca.server(names);
  const serve = (handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Server => {
    const server = createServer({ cert: certPem, key: keyPem }, (req, res) => void handler(req, res).catch(() => res.destroy()));
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  const loginServer = serve(login);
  const hostServer = serve(host);
  await Promise.all([
    new Promise<void>((resolve) => loginServer.listen(0, '127.0.0.1', resolve)),
    new Promise<void>((resolve, reject) => {
      hostServer.once('error', reject);
      hostServer.listen(443, options.hostAddress, resolve);
    }),
  ]);
  return {
    loginUrl: `https://127.0.0.1:${(loginServer.address() as AddressInfo).port}`,
    caPem: options.ca.rootPem,
    loginLog,
    requestsFor(domain) {
      let total = counts.get(domain) ?? 0;
      for (const [key, value] of counts) {
        if (key.startsWith('host:') && (key === `host:${domain}` || key.endsWith(`.${domain}`))) total += value;
      }
      return total;
    },
    misbehave(key, how) {
      if (how) misbehaviours.set(key, how);
      else misbehaviours.delete(key);
    },
    resetCounts() {
      counts.clear();
      loginLog.length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise((resolve) => loginServer.close(resolve)), new Promise((resolve) => hostServer.close(resolve))]);
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}
