/**
 * The small Node apps for what a web server alone cannot show (DESIGN §17): a framework debug
 * page, a reflected parameter, an open redirect, cookies with every flag combination, a private
 * address, PUT/DELETE in Allow, JavaScript libraries; a soft-404 site answering 200 to
 * everything; a rate-limited site answering 429; a hostile site (tarpit, a 1 GB body, a redirect
 * loop, 100,000 links, an endless calendar, broken HTML, a redirect to another origin); and an
 * OSV-compatible service speaking OSV's `POST /v1/query` wire shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface Arrival {
  method: string;
  url: string;
  at: number;
  userAgent: string;
}

export interface NodeApp {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, app: NodeApp) => void): Promise<NodeApp> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    arrivals.push({ method: req.method ?? '', url: req.url ?? '', at: performance.now(), userAgent: req.headers['user-agent'] ?? '' });
    handler(req, res, app);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const app: NodeApp = {
    url: `http://127.0.0.1:${port}/`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return app;
}

const html = (res: ServerResponse, body: string, status = 200, headers: Record<string, string | string[]> = {}): void => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(`<!doctype html><html><body>${body}</body></html>`);
};

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export const JQUERY_BANNER = '/*! jQuery v1.8.3 jquery.com | jquery.org/license */\n(function(){})();\n';

/** The application with one route per rule it shows. */
export function startApp(): Promise<NodeApp> {
  return serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://app');
    switch (url.pathname) {
      case '/':
        return html(
          res,
          `<a href="/debug">debug</a> <a href="/search?q=shoes">search</a> <a href="/safe-search?q=shoes">safe</a>
<a href="/go?next=/">go</a> <a href="/go-safe?next=/">go safe</a> <a href="/cookies">cookies</a> <a href="/ip">ip</a>
<a href="/api/items">api</a> <a href="/lib.html">lib</a>`,
        );
      case '/debug':
        return html(
          res,
          `<pre>TypeError: Cannot read properties of undefined (reading 'id')
    at handler (/srv/app/routes/orders.js:42:17)
    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)</pre>`,
          500,
        );
      case '/search':
        return html(res, `<p>Results for ${url.searchParams.get('q') ?? ''}</p>`);
      case '/safe-search':
        return html(res, `<p>Results for ${escapeHtml(url.searchParams.get('q') ?? '')}</p>`);
      case '/go':
        res.writeHead(302, { location: url.searchParams.get('next') ?? '/' });
        return res.end();
      case '/go-safe': {
        const next = url.searchParams.get('next') ?? '/';
        res.writeHead(302, { location: next.startsWith('/') && !next.startsWith('//') ? next : '/' });
        return res.end();
      }
      case '/cookies':
        return html(res, 'cookies', 200, {
          'set-cookie': [
            'sid=1; Path=/',
            'theme=dark; Path=/; SameSite=Lax',
            'auth_token=2; Path=/; HttpOnly; SameSite=None',
            'gone=; Max-Age=0',
          ],
        });
      case '/ip':
        return html(res, '<!-- upstream 10.20.30.40:8080 -->ok');
      case '/api/items':
        if (req.method === 'OPTIONS') {
          res.writeHead(204, { allow: 'GET, PUT, DELETE, OPTIONS' });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('[]');
      case '/lib.html':
        return html(res, '<script src="/js/jquery.min.js"></script><script src="https://cdn.example.com/lodash-4.17.4.min.js"></script>');
      case '/js/jquery.min.js':
        res.writeHead(200, { 'content-type': 'application/javascript' });
        return res.end(JQUERY_BANNER);
      default:
        return html(res, 'not found', 404);
    }
  });
}

/** A soft-404 site: the same 200 page for every path, carrying every probe's signature. */
export function startSoft404(): Promise<NodeApp> {
  return serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ref: refs/heads/main\n[core]\nAPP_KEY=base64:abcdefghijklmnop\nActive connections: 1\nserver accepts handled requests\n');
  });
}

/** Answers its first `allowed` requests, then 429 to everything. */
export function startRateLimited(allowed: number): Promise<NodeApp> {
  let served = 0;
  return serve((_req, res) => {
    served += 1;
    if (served > allowed) {
      res.writeHead(429, { 'retry-after': '60', 'content-type': 'text/plain' });
      return res.end('slow down');
    }
    html(res, '<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>');
  });
}

/** A site made to break crawlers; `other` is the origin its cross-origin redirect points to. */
export function startHostile(other: string): Promise<NodeApp> {
  return serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hostile');
    if (url.pathname === '/') {
      return html(
        res,
        `<a href="/tarpit">t</a> <a href="/huge">h</a> <a href="/loop/a">l</a> <a href="/links">k</a> <a href="/cal?m=0">c</a>
<a href="/broken">b</a> <a href="/away">a</a> <a href="/metadata">m</a>`,
      );
    }
    if (url.pathname === '/tarpit') {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('<'), 500);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (url.pathname === '/huge') {
      // 1 GB declared and streamed as long as the client reads.
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(1024 ** 3) });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = (): void => {
        while (sent < 1024 ** 3) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = 1024 ** 3));
      return pump();
    }
    if (url.pathname === '/loop/a' || url.pathname === '/loop/b') {
      res.writeHead(302, { location: url.pathname === '/loop/a' ? '/loop/b' : '/loop/a' });
      return res.end();
    }
    if (url.pathname === '/links') {
      const links = Array.from({ length: 100_000 }, (_, i) => `<a href="/l/${i}">${i}</a>`).join('');
      return html(res, links);
    }
    if (url.pathname === '/cal') {
      const month = Number(url.searchParams.get('m') ?? 0);
      return html(res, `<a href="/cal?m=${month + 1}">next</a> <a href="/cal?m=${month - 1}">prev</a>`);
    }
    if (url.pathname === '/broken') {
      return html(
        res,
        `<a href="/ok"<<<a href='/x' <script src=">"<!-- <a href="/hidden"> --><form action=/f method=get><a href=/y>${'<div>'.repeat(20_000)}`,
      );
    }
    if (url.pathname === '/away') {
      res.writeHead(302, { location: other });
      return res.end();
    }
    if (url.pathname === '/metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    html(res, 'page');
  });
}

/** OSV's query API: jquery 1.8.3 has one record (a CVSS v3.1 vector of 6.1), everything else none. */
export function startOsv(): Promise<NodeApp> {
  return serve((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/query') {
        res.writeHead(404);
        return res.end();
      }
      const query = JSON.parse(body) as { package: { name: string; ecosystem: string }; version: string };
      const vulns =
        query.package.ecosystem === 'npm' && query.package.name === 'jquery' && query.version === '1.8.3'
          ? [
              {
                id: 'GHSA-gxr4-xjj5-5px2',
                aliases: ['CVE-2020-11022'],
                summary: 'Potential XSS vulnerability in jQuery',
                severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' }],
                affected: [
                  {
                    package: { name: 'jquery', ecosystem: 'npm' },
                    ranges: [{ type: 'SEMVER', events: [{ introduced: '1.2.0' }, { fixed: '3.5.0' }] }],
                  },
                ],
              },
            ]
          : [];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(vulns.length ? { vulns } : {}));
    });
  });
}
