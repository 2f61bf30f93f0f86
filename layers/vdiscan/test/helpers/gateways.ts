/**
 * Loopback web servers speaking recorded desktop-gateway pages (DESIGN §21: no gateway product
 * runs here): each serves the paths a product answers without authentication, in the product's
 * shape (VMware Horizon's portal page and /portal/info.jsp JSON, Apache Guacamole's
 * translations/en.json, Citrix Gateway's /vpn/index.html, RD Web Access's login.aspx, RD Gateway's
 * 401 with Negotiate/NTLM), and logs every request so a test sees what vdiscan asked for.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export const HORIZON_PORTAL = `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <meta name="author" content="VMware, Inc.">
    <title>VMware Horizon</title>
    <link rel="stylesheet" href="/portal/webclient/style.css?v=15736269">
</head>
<body><div class="ui-indent"><p>You can connect to your desktop and applications by using the VMware Horizon Client or through the browser.</p></div></body>
</html>`;

export const horizonInfo = (clientIp: string, version: string): string =>
  JSON.stringify({ clientIPAddress: clientIp, contextPath: '/portal', enableWebClient: true, clientVersion: version });

export const guacamoleTranslations = (version: string): string =>
  JSON.stringify({ NAME: 'English', APP: { NAME: 'Apache Guacamole', VERSION: version, ACTION_LOGIN: 'Login' } });

export const CITRIX_VPN_INDEX = `<!DOCTYPE html><html><head><title>Citrix Gateway</title>
<script type="text/javascript" src="/vpn/js/rdx/core/js/rdx.js"></script></head>
<body class="ns_body"><div id="logonbox">Please log on to Citrix Gateway</div></body></html>`;

export const RD_WEB_LOGIN = `<!DOCTYPE html><html><head><title>RD Web Access</title></head>
<body><form id="FrmLogin" name="FrmLogin" action="login.aspx?ReturnUrl=%2FRDWeb%2FPages%2Fen-US%2FDefault.aspx" method="post">
<span>RemoteApp and Desktop Connection</span><input id="DomainUserName" name="DomainUserName" type="text"></form></body></html>`;

export const RD_GATEWAY_401: Recorded = {
  status: 401,
  headers: { 'WWW-Authenticate': 'Negotiate, NTLM', 'X-Powered-By': 'ASP.NET' },
  body: '',
};

export interface GatewayServer {
  port: number;
  requests: Array<{ method: string; url: string }>;
  stop: () => Promise<void>;
}

export async function startGateway(pages: Record<string, Recorded>, tls = false): Promise<GatewayServer> {
  const requests: GatewayServer['requests'] = [];
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    requests.push({ method: request.method ?? '', url: request.url ?? '' });
    const page = pages[request.url ?? ''];
    if (!page) {
      response.writeHead(404, { 'Content-Type': 'text/html' });
      response.end('<html><body>Not Found</body></html>');
      return;
    }
    response.writeHead(page.status ?? 200, { 'Content-Type': 'text/html; charset=utf-8', ...page.headers });
    response.end(page.body);
  };
  const server = tls
    ? createHttps({ cert: readFileSync('/etc/xrdp/cert.pem'), key: readFileSync('/etc/xrdp/key.pem') }, handler)
    : createHttp(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
