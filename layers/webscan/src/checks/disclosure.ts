/**
 * The disclosure rules (DESIGN §17 web.disclosure.*): versions in headers, stack traces and
 * framework debug pages, RFC 1918 addresses in headers or bodies.
 */
import type { Ledger } from '../ledger.ts';
import type { Page, PassiveCheck } from '../page.ts';

const VERSION_HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-generator'];
/** A version: digits with at least one dot (nginx/1.22.1, PHP/8.2.7, 4.0.30319), or a bare major after a slash. */
const VERSION = /(?:\/|\bv?)\d+\.\d+(?:\.\d+)*|\/\d+\b/i;

const DEBUG_SIGNATURES: { framework: string; pattern: RegExp }[] = [
  { framework: 'Python traceback', pattern: /Traceback \(most recent call last\):/ },
  { framework: 'Django debug page', pattern: /You're seeing this error because you have <code>DEBUG = True<\/code>/ },
  { framework: 'Werkzeug debugger', pattern: /The debugger caught an exception in your WSGI application|__debugger__=yes/ },
  { framework: 'Laravel/Whoops', pattern: /<title>Whoops! There was an error\.<\/title>|Illuminate\\[A-Za-z\\]+Exception/ },
  { framework: 'Spring Whitelabel', pattern: /Whitelabel Error Page[\s\S]{0,400}There was an unexpected error/ },
  { framework: 'Rails', pattern: /<title>Action Controller: Exception caught<\/title>/ },
  { framework: 'ASP.NET', pattern: /Server Error in '[^']*' Application\.|<b>Stack Trace:<\/b>/ },
  {
    framework: 'Java stack trace',
    pattern: /\b(?:java|javax|jakarta|org\.springframework)\.[\w.$]+(?:Exception|Error)\b[^\n]{0,200}\n\s*at [\w.$<>]+\([\w.]+\.java:\d+\)/,
  },
  {
    framework: 'Node.js stack trace',
    pattern: /\b\w*Error: [^\n]{0,300}\n\s+at [^\n]{0,300}\((?:\/|[A-Za-z]:\\|node:)[^\n)]{1,300}:\d+:\d+\)/,
  },
  { framework: 'PHP error', pattern: /<b>(?:Fatal error|Parse error|Warning)<\/b>:[^\n]{0,400} on line <b>\d+<\/b>/ },
];

const PRIVATE_IP =
  /(?<![\d.])(10\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})|172\.(?:1[6-9]|2\d|3[01])\.(?:\d{1,3})\.(?:\d{1,3})|192\.168\.(?:\d{1,3})\.(?:\d{1,3}))(?![\d.]*\d)/g;

function validIp(ip: string): boolean {
  return ip.split('.').every((octet) => Number(octet) <= 255);
}

export function privateAddresses(text: string): string[] {
  return [...new Set([...text.matchAll(PRIVATE_IP)].map((match) => match[1]).filter(validIp))];
}

export function debugSignature(text: string): string | undefined {
  return DEBUG_SIGNATURES.find(({ pattern }) => pattern.test(text))?.framework;
}

export function makeDisclosureCheck(targetHost: string): PassiveCheck {
  return {
    inspect(page: Page, ledger: Ledger): void {
      const { response, path, text } = page;
      ledger.examined('web.disclosure.version_header', path);
      for (const name of VERSION_HEADERS) {
        const value = response.headers[name];
        if (value !== undefined && VERSION.test(value)) {
          ledger.found('web.disclosure.version_header', {
            path,
            key: `${name}: ${value.slice(0, 200)}`,
            detail: `${name}: ${value.slice(0, 200)}`,
            evidence: { header: name, value: value.slice(0, 200) },
          });
        }
      }
      if (response.method === 'HEAD') return;
      ledger.examined('web.disclosure.debug_error', path);
      const framework = debugSignature(text);
      if (framework) {
        ledger.found('web.disclosure.debug_error', {
          path,
          key: `${framework} ${path.split('?')[0]}`,
          detail: `${framework} in the response to ${path} (HTTP ${response.status})`,
          evidence: { framework, status: response.status },
        });
      }
      ledger.examined('web.disclosure.private_ip', path);
      const headerText = Object.entries(response.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n');
      const addresses = privateAddresses(`${headerText}\n${text}`).filter((ip) => ip !== targetHost);
      for (const ip of addresses.slice(0, 5)) {
        ledger.found('web.disclosure.private_ip', {
          path,
          key: ip,
          detail: `${ip} appears in the response to ${path}`,
          evidence: { address: ip, in: headerText.includes(ip) ? 'header' : 'body' },
        });
      }
    },
  };
}
