/**
 * The nginx fixture of webscan's tests: one nginx process with a server block per case, each
 * showing rules or their absence (DESIGN §17's reference servers). `bad` has autoindex, server
 * tokens, a real .git, a .env with a secret, a backup, stub_status, a credentialed CORS
 * reflection and no security headers; `good` is the same site configured well. The HTTPS pair
 * differs in HSTS, the cookie's Secure flag and mixed content; `upgrade` redirects to HTTPS.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, makeServerDir, startNginx, writeTree, type RunningServer } from './servers.ts';

export interface NginxFixture {
  server: RunningServer;
  bad: string;
  good: string;
  httpsBad: string;
  httpsGood: string;
  upgrade: string;
  caFile: string;
}

function site(extraLinks = ''): Record<string, string> {
  return {
    'index.html': `<!doctype html><html><head><title>Shop</title><link rel="stylesheet" href="/static/site.css"><script src="/static/app.js"></script></head>
<body><a href="/about.html">About</a> <a href="/files/a.txt">A file</a> <a href="/search.html?q=shoes">Search</a> ${extraLinks}</body></html>`,
    'about.html': '<!doctype html><html><body><a href="/index.html">Home</a> <a href="/contact.html">Contact</a></body></html>',
    'contact.html': '<!doctype html><html><body><p>Write to us.</p><a href="/">Home</a></body></html>',
    'search.html': '<!doctype html><html><body><p>Results</p></body></html>',
    'hidden.html': '<!doctype html><html><body><p>Only in the sitemap.</p></body></html>',
    'files/a.txt': 'a\n',
    'files/b.txt': 'b\n',
    'static/app.js': 'document.title = "Shop";\n',
    'static/site.css': 'body { margin: 0 }\n',
    'robots.txt': 'User-agent: *\nDisallow: /private/\nSitemap: /sitemap.xml\n',
    'sitemap.xml':
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/hidden.html</loc></url></urlset>',
    'private/index.html': '<!doctype html><html><body><p>Private.</p></body></html>',
  };
}

/** A secret-looking AWS key id that belongs to nobody (AWS's documented example). */
export const EXAMPLE_AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';

const SECURE_HEADERS = `
    add_header Content-Security-Policy "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'" always;
    add_header X-Frame-Options DENY always;
    add_header X-Content-Type-Options nosniff always;
    add_header Referrer-Policy strict-origin-when-cross-origin always;
    add_header X-XSS-Protection "1; mode=block" always;`;

export async function startNginxFixture(ca: { certPem: string; keyPem: string; rootPem: string }): Promise<NginxFixture> {
  const dir = await makeServerDir('webscan-nginx-');
  const [bad, good, httpsBad, httpsGood, upgrade] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  await writeTree(join(dir, 'bad'), {
    ...site(),
    'index.html.bak': '<!doctype html><html><body>old index with <?php $db_password ?></body></html>',
    '.env': `APP_ENV=production\nAWS_ACCESS_KEY_ID=${EXAMPLE_AWS_KEY_ID}\nDB_PASSWORD=correct-horse-battery\n`,
  });
  execFileSync('git', ['init', '-q', join(dir, 'bad')]);
  execFileSync('git', [
    '-C',
    join(dir, 'bad'),
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'initial',
  ]);
  execFileSync('chmod', ['-R', 'a+rX', join(dir, 'bad')]);
  await writeTree(join(dir, 'good'), site());
  await writeTree(join(dir, 'https-bad'), {
    'index.html': `<!doctype html><html><body><a href="/page.html">Page</a><script src="http://127.0.0.1:${bad}/static/app.js"></script>
<form action="http://127.0.0.1:${bad}/search.html" method="get"><input name="q"></form></body></html>`,
    'page.html': '<!doctype html><html><body><iframe src="http://127.0.0.1/frame.html"></iframe></body></html>',
  });
  await writeTree(join(dir, 'https-good'), {
    'index.html': '<!doctype html><html><body><a href="/page.html">Page</a><script src="/app.js"></script></body></html>',
    'page.html': '<!doctype html><html><body><p>Page</p></body></html>',
    'app.js': 'void 0;\n',
  });
  execFileSync('chmod', ['-R', 'a+rX', dir]);
  await writeFile(join(dir, 'cert.pem'), ca.certPem);
  await writeFile(join(dir, 'key.pem'), ca.keyPem);
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, ca.rootPem);
  const http = `
  server {
    listen 127.0.0.1:${bad};
    root {{DIR}}/bad;
    server_tokens on;
    add_header Access-Control-Allow-Origin $http_origin always;
    add_header Access-Control-Allow-Credentials true always;
    location = / { add_header Set-Cookie "sessionid=abc123; Path=/"; add_header Access-Control-Allow-Origin $http_origin always; add_header Access-Control-Allow-Credentials true always; try_files /index.html =404; }
    location /files/ { autoindex on; }
    location = /nginx_status { stub_status; }
  }
  server {
    listen 127.0.0.1:${good};
    root {{DIR}}/good;
    server_tokens off;
    ${SECURE_HEADERS}
    location = / { add_header Set-Cookie "sessionid=abc123; Path=/; HttpOnly; SameSite=Lax"; ${SECURE_HEADERS} try_files /index.html =404; }
    location ~ /\\. { return 404; }
  }
  server {
    listen 127.0.0.1:${httpsBad} ssl;
    ssl_certificate {{DIR}}/cert.pem;
    ssl_certificate_key {{DIR}}/key.pem;
    root {{DIR}}/https-bad;
    server_tokens off;
    ${SECURE_HEADERS}
    location = / { add_header Set-Cookie "sessionid=abc123; Path=/; HttpOnly; SameSite=Lax"; ${SECURE_HEADERS} try_files /index.html =404; }
  }
  server {
    listen 127.0.0.1:${httpsGood} ssl;
    ssl_certificate {{DIR}}/cert.pem;
    ssl_certificate_key {{DIR}}/key.pem;
    root {{DIR}}/https-good;
    server_tokens off;
    ${SECURE_HEADERS}
    add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;
    location = / { add_header Set-Cookie "sessionid=abc123; Path=/; Secure; HttpOnly; SameSite=Lax"; ${SECURE_HEADERS} add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always; try_files /index.html =404; }
  }
  server {
    listen 127.0.0.1:${upgrade};
    server_tokens off;
    return 301 https://127.0.0.1:${httpsGood}$request_uri;
  }`;
  const server = await startNginx(dir, http, [bad, good, httpsBad, httpsGood, upgrade]);
  const url = (port: number, scheme = 'http'): string => `${scheme}://127.0.0.1:${port}/`;
  return {
    server,
    bad: url(bad),
    good: url(good),
    httpsBad: url(httpsBad, 'https'),
    httpsGood: url(httpsGood, 'https'),
    upgrade: url(upgrade),
    caFile,
  };
}
