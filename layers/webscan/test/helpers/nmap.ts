/**
 * nmap's http NSE scripts as the second reference of DESIGN §17 (http-security-headers,
 * http-cookie-flags, http-cors, http-methods, http-git, http-trace), forced onto the fixture's
 * high ports with `+` (their port rules expect an http service name), read from the XML output
 * and mapped to the webscan rules they judge.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPTS = ['http-security-headers', 'http-cookie-flags', 'http-cors', 'http-methods', 'http-git', 'http-trace'];

function decode(text: string): string {
  return text
    .replace(/&#xa;/g, '\n')
    .replace(/&#x9;/g, '\t')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Script outputs by port. */
export async function runNmapScripts(ports: readonly number[]): Promise<Map<number, Map<string, string>>> {
  const args = [
    '-n',
    '-Pn',
    '-sT',
    '-p',
    ports.join(','),
    '--script',
    SCRIPTS.map((script) => `+${script}`).join(','),
    '-oX',
    '-',
    '127.0.0.1',
  ];
  const { stdout } = await run('nmap', args, { timeout: 120_000 });
  const byPort = new Map<number, Map<string, string>>();
  for (const match of stdout.matchAll(/<port protocol="tcp" portid="(\d+)">([\s\S]*?)<\/port>/g)) {
    const scripts = new Map<string, string>();
    for (const script of match[2].matchAll(/<script id="([^"]+)" output="([^"]*)"/g)) scripts.set(script[1], decode(script[2]));
    byPort.set(Number(match[1]), scripts);
  }
  return byPort;
}

/**
 * The webscan rules nmap's output says fire (true) or not (false) on one port. http-cookie-flags
 * judges the Secure flag only on a port that version detection (-sV) found to be TLS, which these
 * runs leave out for time, so web.cookie.no_secure is not compared with nmap (wapiti compares it).
 */
export function nmapVerdicts(scripts: Map<string, string>, https: boolean): Record<string, boolean> {
  const headers = scripts.get('http-security-headers') ?? '';
  const methods = scripts.get('http-methods') ?? '';
  const cookies = scripts.get('http-cookie-flags') ?? '';
  const risky = /Potentially risky methods: ([^\n]*)/.exec(methods)?.[1] ?? '';
  const verdicts: Record<string, boolean> = {
    'web.methods.trace': /TRACE is enabled/.test(scripts.get('http-trace') ?? ''),
    'web.methods.unsafe_allowed': /\b(PUT|DELETE)\b/.test(risky),
    'web.cookie.no_httponly': /httponly flag not set/.test(cookies),
    'web.exposure.vcs': /Git repository found/.test(scripts.get('http-git') ?? ''),
    'web.headers.clickjacking': !/X_Frame_Options:/.test(headers),
    'web.headers.nosniff_missing': !/X_Content_Type_Options:\s*\n\s*Header: X-Content-Type-Options: nosniff/.test(headers),
    'web.headers.csp_missing': !/Content_Security_Policy:/.test(headers),
  };
  if (https) {
    verdicts['web.headers.hsts_missing'] = /HSTS not configured/.test(headers) || !/Strict_Transport_Security:/.test(headers);
  }
  return verdicts;
}
