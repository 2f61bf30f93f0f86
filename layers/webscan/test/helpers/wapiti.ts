/**
 * wapiti (Debian, 3.0.4) as the independent reference of DESIGN §17: its http_headers,
 * cookieflags, csp, methods and backup modules against the same server, its JSON report mapped
 * to webscan's rule ids where the two check the same thing. wapiti builds its wappalyzer module
 * at start-up and downloads its database when none is stored: an empty one is stored in the
 * run's own config folder so that it never reaches for the internet.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const WAPITI_MODULES = 'http_headers,cookieflags,csp,methods,backup';

export interface WapitiEntry {
  category: string;
  info: string;
  path: string;
}

/** The arguments of one wapiti run (the bench uses them too). */
export function wapitiArgs(url: string, dir: string, depth = 3): string[] {
  return [
    '-u',
    url,
    '-m',
    WAPITI_MODULES,
    '--flush-session',
    '--store-session',
    dir,
    '--store-config',
    dir,
    '--no-bugreport',
    '-f',
    'json',
    '-o',
    join(dir, 'report.json'),
    '--scope',
    'folder',
    '-d',
    String(depth),
  ];
}

export async function prepareWapitiDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'webscan-wapiti-'));
  await writeFile(join(dir, 'apps.json'), '{"technologies":{},"categories":{}}');
  return dir;
}

export async function runWapiti(url: string, depth = 3): Promise<WapitiEntry[]> {
  const dir = await prepareWapitiDir();
  try {
    await run('wapiti', wapitiArgs(url, dir, depth), { timeout: 120_000, env: { ...process.env, HOME: dir } });
    return readWapitiReport(join(dir, 'report.json'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function readWapitiReport(file: string): Promise<WapitiEntry[]> {
  const report = JSON.parse(await readFile(file, 'utf8')) as { vulnerabilities: Record<string, { info: string; path: string }[]> };
  return Object.entries(report.vulnerabilities).flatMap(([category, entries]) =>
    entries.map(({ info, path }) => ({ category, info, path })),
  );
}

/** webscan's rule for a wapiti entry, or undefined where webscan has no such rule (X-XSS-Protection, object-src, base-uri). */
export function ruleOfWapiti(entry: WapitiEntry): string | undefined {
  if (entry.category === 'Backup file') return 'web.exposure.backup_or_config';
  if (entry.category === 'HttpOnly Flag cookie') return 'web.cookie.no_httponly';
  if (entry.category === 'Secure Flag cookie') return 'web.cookie.no_secure';
  if (entry.info.startsWith('X-Frame-Options')) return 'web.headers.clickjacking';
  if (entry.info.startsWith('X-Content-Type-Options')) return 'web.headers.nosniff_missing';
  if (entry.info.startsWith('Strict-Transport-Security')) return 'web.headers.hsts_missing';
  if (entry.info === 'CSP is not set') return 'web.headers.csp_missing';
  if (/"(script-src|default-src)"/.test(entry.info)) return 'web.headers.csp_weak';
  return undefined;
}

/** The rules both tools judge, compared target by target. */
export const OVERLAP = [
  'web.headers.clickjacking',
  'web.headers.nosniff_missing',
  'web.headers.hsts_missing',
  'web.headers.csp_missing',
  'web.headers.csp_weak',
  'web.cookie.no_httponly',
  'web.cookie.no_secure',
  'web.exposure.backup_or_config',
] as const;

/**
 * The differences the two tools' definitions explain, and nothing else: over plain HTTP wapiti
 * reports a missing HSTS header and a cookie without Secure, where webscan judges both only over
 * HTTPS (a browser ignores HSTS received over HTTP, RFC 6797 §8.1; Secure matters for a cookie an
 * HTTPS site sets), so its checks are `skipped` there.
 */
export function explainedDifference(rule: string, target: string, wapitiFires: boolean, webscanStatus: string): string | undefined {
  const plainHttp = target.startsWith('http://');
  if (plainHttp && wapitiFires && webscanStatus === 'skipped') {
    if (rule === 'web.headers.hsts_missing') return 'HSTS is judged over HTTPS only (RFC 6797 §8.1)';
    if (rule === 'web.cookie.no_secure') return 'Secure is judged for cookies set over HTTPS';
  }
  return undefined;
}
