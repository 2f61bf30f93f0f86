/** The pure parts of webscan: what each rule reads from a header, a body or a path. */
import { describe, expect, it } from 'vitest';
import { parseSetCookie } from '../src/checks/cookies.ts';
import { debugSignature, privateAddresses } from '../src/checks/disclosure.ts';
import { maskSecret, secretsIn } from '../src/checks/exposure.ts';
import { hstsMaxAge, weakScriptSources } from '../src/checks/headers.ts';
import { libraryFromBanner, libraryFromFileName, librariesFromPackageJson } from '../src/checks/js-libraries.ts';
import { globMatcher } from '../src/glob.ts';
import { parseHtml } from '../src/html.ts';
import { robotsSeeds, sitemapLocations } from '../src/seeds.ts';
import { parseWebTarget } from '../src/target.ts';

describe('webscan parsing', () => {
  it('judges CSP script sources as DESIGN §17 lists them', () => {
    expect(weakScriptSources("default-src 'self'")).toBeUndefined();
    expect(weakScriptSources("default-src 'self'; script-src 'self' 'unsafe-inline'")).toEqual(["'unsafe-inline'"]);
    expect(weakScriptSources("script-src 'self' 'unsafe-inline' 'nonce-abc'")).toBeUndefined();
    expect(weakScriptSources('default-src * data:')).toEqual(['*', 'data:']);
    expect(weakScriptSources("script-src http: 'unsafe-eval'")).toEqual(['http:', "'unsafe-eval'"]);
    expect(weakScriptSources("frame-ancestors 'none'")).toEqual(['no script-src or default-src']);
    // The first script-src counts, as in browsers.
    expect(weakScriptSources("script-src 'self'; script-src *")).toBeUndefined();
  });

  it('reads HSTS max-age', () => {
    expect(hstsMaxAge('max-age=31536000; includeSubDomains')).toBe(31536000);
    expect(hstsMaxAge('includeSubDomains; max-age="300"')).toBe(300);
    expect(hstsMaxAge('includeSubDomains')).toBeUndefined();
  });

  it('parses Set-Cookie attributes case-insensitively', () => {
    const cookie = parseSetCookie('SID=abc=def; Path=/; SECURE; HttpOnly; SameSite=None')!;
    expect(cookie.name).toBe('SID');
    expect([...cookie.attributes.keys()]).toEqual(['path', 'secure', 'httponly', 'samesite']);
    expect(parseSetCookie('=novalue')).toBeUndefined();
  });

  it('finds RFC 1918 addresses and nothing that only looks like one', () => {
    expect(privateAddresses('a 10.0.0.1 b 172.16.5.4 c 192.168.1.254 d 172.32.0.1 e 10.0.0.300 f 110.0.0.1 g 1.10.0.0.1')).toEqual([
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.254',
    ]);
  });

  it('recognises stack traces and debug pages', () => {
    expect(debugSignature('Traceback (most recent call last):\n  File "x.py"')).toBe('Python traceback');
    expect(debugSignature('java.lang.NullPointerException: x\n\tat com.example.A.b(A.java:10)')).toBe('Java stack trace');
    expect(debugSignature('<b>Fatal error</b>: Uncaught Error in /var/www/a.php on line <b>3</b>')).toBe('PHP error');
    expect(debugSignature('An error occurred. Please try again.')).toBeUndefined();
  });

  it('masks secrets as DESIGN §13 does and never keeps a value', () => {
    const found = secretsIn('AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nDB_PASSWORD=hunter2hunter2\nDEBUG=true\n');
    expect(found.map((secret) => [secret.kind, secret.masked, secret.length])).toEqual([
      ['aws_access_key_id', 'AKIA…', 20],
      ['secret_assignment', 'hunt…', 14],
    ]);
    expect(JSON.stringify(found)).not.toContain('hunter2hunter2');
    expect(maskSecret('abcdef').sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads library versions from file names, banners and exact package.json versions', () => {
    expect(libraryFromFileName(new URL('https://cdn.example.com/ajax/jquery-3.4.1.min.js'))).toEqual({ name: 'jquery', version: '3.4.1' });
    expect(libraryFromFileName(new URL('https://cdn.example.com/app-1.2.3.js'))).toBeUndefined();
    expect(libraryFromBanner('/*!\n * Bootstrap v4.3.1 (https://getbootstrap.com/)\n */')).toEqual({ name: 'bootstrap', version: '4.3.1' });
    expect(librariesFromPackageJson('{"dependencies":{"lodash":"4.17.4","vue":"^2.6.0"}}', '/package.json')).toEqual([
      { name: 'lodash', version: '4.17.4', source: 'package.json', path: '/package.json' },
    ]);
    expect(librariesFromPackageJson('<html>', '/package.json')).toBeUndefined();
  });

  it('reads links from markup that breaks parsers, and caps them', () => {
    const parsed = parseHtml(
      `<a href="/a?x=1&amp;y=2"><A HREF='/b'><a href=/c><!-- <a href="/hidden"> --><script src="/s.js" integrity=sha384-x></script><a href="/d"`,
    );
    expect(parsed.references.map((reference) => reference.url)).toEqual(['/a?x=1&y=2', '/b', '/c', '/s.js']);
    expect(parsed.references[3].attributes.integrity).toBe('sha384-x');
    const many = parseHtml('<a href="/x">'.repeat(6000));
    expect([many.references.length, many.capped]).toEqual([5000, true]);
  });

  it('takes robots.txt and sitemap.xml entries as seeds', () => {
    const origin = new URL('https://shop.example.com/');
    const robots = robotsSeeds(
      'User-agent: *\nDisallow: /admin/\nAllow: /public\nDisallow: /*.pdf$\nSitemap: https://shop.example.com/s.xml\n',
      origin,
    );
    expect(robots.paths.map((url) => url.pathname)).toEqual(['/admin/', '/public']);
    expect(robots.sitemaps.map((url) => url.href)).toEqual(['https://shop.example.com/s.xml']);
    expect(
      sitemapLocations('<urlset><url><loc> https://shop.example.com/a?b=1&amp;c=2 </loc></url></urlset>', origin).map((url) => url.href),
    ).toEqual(['https://shop.example.com/a?b=1&c=2']);
  });

  it('matches path globs and parses targets', () => {
    expect(globMatcher('/admin/*')('/admin/users')).toBe(true);
    expect(globMatcher('/admin/*')('/admin/users/1')).toBe(false);
    expect(globMatcher('/static/**')('/static/a/b.js')).toBe(true);
    expect(parseWebTarget('https://user:pw@example.com/')).toEqual({ ok: false, message: 'a URL with credentials is not a target' });
    expect(parseWebTarget('ftp://example.com/').ok).toBe(false);
  });
});
