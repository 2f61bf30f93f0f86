/**
 * The apache2 fixture: two Debian apache2 processes (ServerTokens is server-wide), `bad` with
 * ServerTokens Full, TraceEnable On, Indexes, mod_status, Subversion and Mercurial metadata in the
 * docroot, a credentialed CORS answer to the null origin and a PHP-style session cookie without
 * flags; `good` the same site with ServerTokens Prod, TraceEnable Off, no listing, no status page,
 * dot-files hidden and the security headers set.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, makeServerDir, startApache, writeTree, type RunningServer } from './servers.ts';

export interface ApacheFixture {
  bad: string;
  good: string;
  servers: RunningServer[];
}

const SITE: Record<string, string> = {
  'index.html': '<!doctype html><html><body><a href="/docs/">Docs</a> <a href="/about.html">About</a></body></html>',
  'about.html': '<!doctype html><html><body><a href="/">Home</a></body></html>',
  'docs/guide.txt': 'guide\n',
  'docs/notes.txt': 'notes\n',
};

export async function startApacheFixture(): Promise<ApacheFixture> {
  const [badDir, goodDir] = await Promise.all([makeServerDir('webscan-apache-bad-'), makeServerDir('webscan-apache-good-')]);
  const [badPort, goodPort] = await Promise.all([freePort(), freePort()]);
  await writeTree(join(badDir, 'www'), { ...SITE, '.svn/entries': '12\n', '.hg/requires': 'revlogv1\nstore\nfncache\ndotencode\n' });
  await writeTree(join(goodDir, 'www'), SITE);
  execFileSync('chmod', ['-R', 'a+rX', badDir, goodDir]);
  const bad = await startApache(
    badDir,
    `
ServerTokens Full
TraceEnable On
DocumentRoot {{DIR}}/www
DirectoryIndex index.html
<Directory {{DIR}}/www>
  Options +Indexes
  Require all granted
</Directory>
<Location /server-status>
  SetHandler server-status
</Location>
Header always set Access-Control-Allow-Origin "null"
Header always set Access-Control-Allow-Credentials "true"
<Location "/index.html">
  Header always set Set-Cookie "PHPSESSID=0123456789abcdef; path=/"
</Location>
`,
    [badPort],
  );
  const good = await startApache(
    goodDir,
    `
ServerTokens Prod
ServerSignature Off
TraceEnable Off
DocumentRoot {{DIR}}/www
DirectoryIndex index.html
<Directory {{DIR}}/www>
  Options -Indexes
  Require all granted
</Directory>
RedirectMatch 404 "/\\."
Header always set Content-Security-Policy "default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'"
Header always set X-Frame-Options SAMEORIGIN
Header always set X-Content-Type-Options nosniff
Header always set Referrer-Policy no-referrer
Header always set X-XSS-Protection "1; mode=block"
<Location "/index.html">
  Header always set Set-Cookie "PHPSESSID=0123456789abcdef; path=/; HttpOnly; SameSite=Strict"
</Location>
`,
    [goodPort],
  );
  return { bad: `http://127.0.0.1:${badPort}/`, good: `http://127.0.0.1:${goodPort}/`, servers: [bad, good] };
}
