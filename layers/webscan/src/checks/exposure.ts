/**
 * The exposure rules (DESIGN §17 web.exposure.*). A fixed list of probes (robots.txt does not
 * govern it), each with the signature its file must carry, requested after the site's not-found
 * shape is learned; and directory listings, recognised on every response of the crawl (the
 * crawler also visits the parent directories of what it finds).
 */
import { createHash } from 'node:crypto';
import type { WebRuleId } from '../catalogue.ts';
import type { WebResponse } from '../http-client.ts';
import type { Ledger } from '../ledger.ts';
import { looksNotFound, type NotFoundShape } from '../not-found.ts';
import { isSuccess, type Page, type PassiveCheck } from '../page.ts';

export interface Probe {
  rule: WebRuleId;
  path: string;
  signature: RegExp;
  what: string;
  /** A body matching this is not the file (an HTML page that happens to match the signature). */
  reject?: RegExp;
}

const HTML_OR_PHP = /<\?php|<html|<!doctype html/i;
const ZIP = /^PK\x03\x04/;
const GZIP = /^\x1f\x8b/;
const SQL = /CREATE TABLE|INSERT INTO|-- MySQL dump|PostgreSQL database dump/i;
const ENV = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/m;
const STUB_STATUS = /^Active connections:\s*\d+\s*\nserver accepts handled requests/;

const HTML_PAGE = /<html|<!doctype html|<body/i;
/** Files that are not HTML: an HTML page matching their signature is some other page. */
const probe = (rule: WebRuleId, what: string, signature: RegExp, paths: string[]): Probe[] =>
  paths.map((path) => ({
    rule,
    path,
    signature,
    what,
    ...(signature === HTML_OR_PHP || rule === 'web.exposure.status_page' ? {} : { reject: HTML_PAGE }),
  }));

/** The fixed probe list; docs/webscan.md lists it. */
export const PROBES: readonly Probe[] = [
  ...probe('web.exposure.vcs', 'Git config', /^\s*\[core\]/m, ['/.git/config']),
  ...probe('web.exposure.vcs', 'Git HEAD', /^(ref: refs\/|[0-9a-f]{40}\s*$)/, ['/.git/HEAD']),
  ...probe('web.exposure.vcs', 'Subversion entries', /^(\d+\s*\n|<\?xml[\s\S]{0,200}<wc-entries)/, ['/.svn/entries']),
  ...probe('web.exposure.vcs', 'Mercurial requires', /^(revlogv1|store|fncache|dotencode|generaldelta)\s*$/m, ['/.hg/requires']),
  ...probe('web.exposure.env_file', 'environment file', ENV, [
    '/.env',
    '/.env.local',
    '/.env.production',
    '/.env.development',
    '/.env.bak',
  ]),
  ...probe('web.exposure.backup_or_config', 'source backup', HTML_OR_PHP, [
    '/index.html.bak',
    '/index.html~',
    '/index.php.bak',
    '/index.php~',
    '/index.php.old',
    '/wp-config.php.bak',
    '/wp-config.php~',
    '/wp-config.php.old',
    '/config.php.bak',
  ]),
  ...probe('web.exposure.backup_or_config', 'ZIP archive', ZIP, ['/backup.zip', '/site.zip', '/www.zip']),
  ...probe('web.exposure.backup_or_config', 'gzip archive', GZIP, ['/backup.tar.gz', '/site.tar.gz', '/backup.tgz']),
  ...probe('web.exposure.backup_or_config', 'SQL dump', SQL, ['/backup.sql', '/dump.sql', '/database.sql', '/db.sql']),
  ...probe('web.exposure.backup_or_config', 'htpasswd', /^[^:\s]+:(\$apr1\$|\$2[aby]\$|\{SHA\}|\$[156]\$)/m, ['/.htpasswd']),
  ...probe('web.exposure.backup_or_config', 'htaccess', /^\s*(RewriteEngine|Require |Deny from|AuthType|<IfModule|Options )/im, [
    '/.htaccess',
  ]),
  ...probe('web.exposure.backup_or_config', 'IIS web.config', /<configuration[\s>]/, ['/web.config']),
  ...probe('web.exposure.backup_or_config', 'Java web.xml', /<web-app[\s>]/, ['/WEB-INF/web.xml']),
  ...probe('web.exposure.backup_or_config', '.DS_Store', /^\x00\x00\x00\x01Bud1/, ['/.DS_Store']),
  ...probe('web.exposure.backup_or_config', 'npm config', /_authToken|^registry=/m, ['/.npmrc']),
  ...probe('web.exposure.backup_or_config', 'docker-compose file', /^services:\s*$|^version:\s*['"]?\d/m, ['/docker-compose.yml']),
  ...probe('web.exposure.status_page', 'Apache server-status', /Apache Server Status for/, ['/server-status']),
  ...probe('web.exposure.status_page', 'nginx stub_status', STUB_STATUS, ['/nginx_status', '/stub_status', '/status', '/basic_status']),
  ...probe('web.exposure.status_page', 'phpinfo()', /<title>phpinfo\(\)<\/title>|<h1 class="p">PHP Version/, ['/phpinfo.php', '/info.php']),
  ...probe(
    'web.exposure.status_page',
    'Spring actuator',
    /"_links"\s*:\s*\{[\s\S]{0,2000}"self"|"propertySources"\s*:|"activeProfiles"\s*:/,
    ['/actuator', '/actuator/env'],
  ),
];

export const PROBE_RULES: readonly WebRuleId[] = [
  'web.exposure.vcs',
  'web.exposure.env_file',
  'web.exposure.backup_or_config',
  'web.exposure.status_page',
];

/** Secret patterns for an exposed settings file (a value matching one makes it critical). */
const SECRET_PATTERNS: { kind: string; pattern: RegExp }[] = [
  { kind: 'aws_access_key_id', pattern: /\b((?:AKIA|ASIA)[0-9A-Z]{16})\b/ },
  { kind: 'private_key', pattern: /(-----BEGIN (?:RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----)/ },
  { kind: 'github_token', pattern: /\b(gh[pousr]_[A-Za-z0-9]{36,})\b/ },
  { kind: 'slack_token', pattern: /\b(xox[abprs]-[A-Za-z0-9-]{10,})\b/ },
  { kind: 'stripe_secret_key', pattern: /\b(sk_live_[A-Za-z0-9]{16,})\b/ },
  {
    kind: 'secret_assignment',
    pattern:
      /^\s*(?:export\s+)?[A-Z0-9_]*(?:SECRET|PASSWORD|PASSWD|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY)[A-Z0-9_]*\s*=\s*["']?([^\s"'#]{8,})/im,
  },
];

/** Masked as DESIGN §13: the first 4 characters and the length, and the SHA-256; never the value. */
export function maskSecret(value: string): { masked: string; length: number; sha256: string } {
  return { masked: `${value.slice(0, 4)}…`, length: value.length, sha256: createHash('sha256').update(value).digest('hex') };
}

export function secretsIn(text: string): { kind: string; masked: string; length: number; sha256: string }[] {
  const found = new Map<string, { kind: string; masked: string; length: number; sha256: string }>();
  for (const { kind, pattern } of SECRET_PATTERNS) {
    const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
    for (const match of text.matchAll(global)) {
      const masked = maskSecret(match[1]);
      // One value is one secret, whichever patterns match it (the first, most specific, names it).
      if (!found.has(masked.sha256)) found.set(masked.sha256, { kind, ...masked });
      if (found.size >= 20) return [...found.values()];
    }
  }
  return [...found.values()];
}

const WAF_BLOCK =
  /Attention Required! \| Cloudflare|Request blocked|The requested URL was rejected|Access Denied[\s\S]{0,200}Reference #|ModSecurity|Web Application Firewall/i;

/** Why a response prevented a check from judging (429, 503, a WAF's block page), or undefined. */
export function blockedReason(response: WebResponse): string | undefined {
  if (response.status === 429) return `HTTP 429 (rate limited) for ${response.url.pathname}`;
  if (response.status === 503) return `HTTP 503 for ${response.url.pathname}`;
  if ((response.status === 403 || response.status === 406) && WAF_BLOCK.test(response.body.toString('latin1', 0, 8192))) {
    return `a WAF block page (HTTP ${response.status}) for ${response.url.pathname}`;
  }
  return undefined;
}

/** Judges one probe's answer into the ledger. */
export function judgeProbe(ledger: Ledger, item: Probe, response: WebResponse, shapes: readonly NotFoundShape[]): void {
  const blocked = blockedReason(response);
  if (blocked) {
    ledger.error(item.rule, `the probe of ${item.path} was prevented: ${blocked}`);
    return;
  }
  ledger.examined(item.rule, item.path);
  if (!isSuccess(response.status)) return;
  const text = response.body.toString('latin1');
  if (!item.signature.test(text) || item.reject?.test(text.slice(0, 4096)) || looksNotFound(response, item.path, shapes)) return;
  const evidence: Record<string, unknown> = { status: response.status, bytes: response.body.length, signature: item.what };
  let severity: 'critical' | undefined;
  if (item.rule === 'web.exposure.env_file') {
    const secrets = secretsIn(response.body.toString('utf8'));
    evidence.secrets = secrets;
    evidence.variables = [...text.matchAll(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)].map((match) => match[1]).slice(0, 50);
    if (secrets.length > 0) severity = 'critical';
  }
  ledger.found(item.rule, {
    path: item.path,
    key: item.path,
    detail: `${item.path} is served (${item.what}, ${response.body.length} bytes)${severity ? `, with ${evidence.secrets ? (evidence.secrets as unknown[]).length : 0} secret value(s)` : ''}`,
    evidence,
    ...(severity ? { severity } : {}),
  });
}

const LISTING =
  /<title>\s*Index of \/[^<]*<\/title>|<h1>\s*Index of \/|<title>Directory listing for \/|\[To Parent Directory\]|<h2>Index of \//i;

export const directoryListingCheck: PassiveCheck = {
  inspect(page: Page, ledger: Ledger): void {
    if (!page.html || !isSuccess(page.response.status)) return;
    ledger.examined('web.exposure.directory_listing', page.path);
    if (LISTING.test(page.text.slice(0, 65_536))) {
      ledger.found('web.exposure.directory_listing', {
        path: page.path,
        key: page.path.split('?')[0],
        detail: `${page.path.split('?')[0]} is a directory listing`,
        evidence: { status: page.response.status },
      });
    }
  },
};
