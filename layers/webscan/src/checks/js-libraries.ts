/**
 * DESIGN §17 web.js.vulnerable_library: JavaScript library versions read from script file names
 * (same-origin and third-party), from the banner comment of the same-origin scripts the crawl
 * fetched, and from a served /package.json (exact versions only: a range says nothing about what
 * is deployed), each looked up in OSV's npm ecosystem. An OSV that cannot answer makes the check
 * an error, never a pass; severity comes from the record's CVSS v3 vector (DESIGN §11 bands).
 */
import { queryOsv, type KnownVulnerability } from '../../../../lib/osv/osv-client.ts';
import type { Ledger } from '../ledger.ts';
import { isSuccess, type Page, type PassiveCheck } from '../page.ts';

export interface LibraryVersion {
  name: string;
  version: string;
  source: 'file_name' | 'banner' | 'package.json';
  path: string;
}

const KNOWN = [
  'jquery',
  'jquery-ui',
  'bootstrap',
  'angular',
  'lodash',
  'moment',
  'vue',
  'react',
  'react-dom',
  'handlebars',
  'underscore',
  'backbone',
  'dompurify',
  'knockout',
  'ember-source',
  'axios',
];
const FILE_NAME =
  /(?:^|\/)(jquery-ui|jquery|bootstrap|angular|lodash|moment|vue|react-dom|react|handlebars|underscore|backbone|dompurify|knockout|axios)[-.@]v?(\d+\.\d+\.\d+)(?:[.-](?:min|slim|slim\.min|bundle|bundle\.min|production\.min))?\.js$/i;
const BANNERS: { name: string; pattern: RegExp }[] = [
  { name: 'jquery', pattern: /jQuery (?:JavaScript Library )?v(\d+\.\d+\.\d+)/ },
  { name: 'jquery-ui', pattern: /jQuery UI - v(\d+\.\d+\.\d+)/ },
  { name: 'bootstrap', pattern: /Bootstrap v(\d+\.\d+\.\d+)/ },
  { name: 'angular', pattern: /AngularJS v(\d+\.\d+\.\d+)/ },
  { name: 'lodash', pattern: /Lodash [\s\S]{0,400}?VERSION = '(\d+\.\d+\.\d+)'|lodash\.com[\s\S]{0,200}?v(\d+\.\d+\.\d+)/ },
  { name: 'moment', pattern: /\/\/! moment\.js\s*\n\/\/! version : (\d+\.\d+\.\d+)/ },
  { name: 'vue', pattern: /Vue\.js v(\d+\.\d+\.\d+)/ },
  { name: 'handlebars', pattern: /handlebars v(\d+\.\d+\.\d+)/i },
  { name: 'dompurify', pattern: /DOMPurify (\d+\.\d+\.\d+)/ },
  { name: 'underscore', pattern: /Underscore\.js (\d+\.\d+\.\d+)/ },
];

export function libraryFromFileName(url: URL): { name: string; version: string } | undefined {
  const match = FILE_NAME.exec(url.pathname);
  return match ? { name: match[1].toLowerCase(), version: match[2] } : undefined;
}

export function libraryFromBanner(text: string): { name: string; version: string } | undefined {
  const head = text.slice(0, 2048);
  for (const { name, pattern } of BANNERS) {
    const match = pattern.exec(head);
    const version = match?.slice(1).find(Boolean);
    if (version) return { name, version };
  }
  return undefined;
}

export function librariesFromPackageJson(text: string, path: string): LibraryVersion[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object') return undefined;
  const { dependencies } = json as { dependencies?: unknown };
  if (dependencies === null || typeof dependencies !== 'object') return undefined;
  return Object.entries(dependencies as Record<string, unknown>)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && /^=?\d+\.\d+\.\d+$/.test(entry[1].trim()))
    .map(([name, version]) => ({ name, version: version.trim().replace(/^=/, ''), source: 'package.json' as const, path }));
}

export class JsLibraries implements PassiveCheck {
  readonly found = new Map<string, LibraryVersion>();
  scripts = 0;

  add(library: LibraryVersion): void {
    const key = `${library.name}@${library.version}`;
    if (!this.found.has(key)) this.found.set(key, library);
  }

  inspect(page: Page): void {
    if (!isSuccess(page.response.status) || page.response.method !== 'GET') return;
    if (page.html) {
      for (const reference of page.html.references) {
        if (reference.tag !== 'script') continue;
        try {
          const url = new URL(reference.url, page.url);
          const fromName = url.origin === page.url.origin ? undefined : libraryFromFileName(url);
          if (fromName) this.add({ ...fromName, source: 'file_name', path: url.href.slice(0, 300) });
        } catch {
          // Not a URL: nothing to read from it.
        }
      }
      return;
    }
    if (/javascript|ecmascript/i.test(page.response.headers['content-type'] ?? '') || page.url.pathname.endsWith('.js')) {
      this.scripts += 1;
      const found = libraryFromBanner(page.text) ?? libraryFromFileName(page.url);
      if (found) this.add({ ...found, source: libraryFromBanner(page.text) ? 'banner' : 'file_name', path: page.path });
    }
  }

  /** Looks every library up in OSV and records the rule's outcome. */
  async judge(ledger: Ledger, osvUrl: string, signal: AbortSignal, packageJsonNote: string): Promise<void> {
    const rule = 'web.js.vulnerable_library';
    const libraries = [...this.found.values()].filter((library) => KNOWN.includes(library.name) || library.source === 'package.json');
    ledger.note(
      rule,
      `${this.scripts} script${this.scripts === 1 ? '' : 's'} read, ${libraries.length} library version${libraries.length === 1 ? '' : 's'} identified (${libraries.map((l) => `${l.name}@${l.version}`).join(', ') || 'none'}); ${packageJsonNote}`,
    );
    for (const library of libraries) {
      let vulnerabilities: KnownVulnerability[];
      try {
        vulnerabilities = await queryOsv(osvUrl, { name: library.name, ecosystem: 'npm', version: library.version }, { signal });
      } catch (error) {
        ledger.error(rule, `OSV lookup of ${library.name}@${library.version} failed: ${(error as Error).message}`);
        continue;
      }
      ledger.examined(rule, library.path);
      for (const vulnerability of vulnerabilities) {
        ledger.found(rule, {
          path: library.path,
          key: `${library.name}@${library.version} ${vulnerability.id}`,
          title: `${library.name} ${library.version}: ${vulnerability.id}`,
          severity: vulnerability.severity,
          detail: `${library.name} ${library.version} (${library.source}) has ${vulnerability.id}${vulnerability.summary ? `: ${vulnerability.summary}` : ''}${vulnerability.fixed.length ? `; fixed in ${vulnerability.fixed.join(', ')}` : ''}`,
          evidence: { library: library.name, version: library.version, source: library.source, vulnerability },
        });
      }
    }
  }
}
