/**
 * Crawl seeds (DESIGN §17): the paths robots.txt names (Allow, Disallow and Sitemap lines: read as
 * seeds, not obeyed), the <loc> entries of sitemap.xml (one level of sitemap indexes), and the
 * paths of an OpenAPI document on the same origin (templated paths left out).
 */
import type { OriginClient } from './http-client.ts';
import { looksNotFound, type NotFoundShape } from './not-found.ts';
import { isSuccess } from './page.ts';

const MAX_SEEDS = 500;

export function robotsSeeds(text: string, origin: URL): { paths: URL[]; sitemaps: URL[] } {
  const paths: URL[] = [];
  const sitemaps: URL[] = [];
  for (const line of text.split(/\r?\n/).slice(0, 5000)) {
    const match = /^\s*(allow|disallow|sitemap)\s*:\s*(\S+)/i.exec(line);
    if (!match) continue;
    const value = match[2];
    try {
      if (match[1].toLowerCase() === 'sitemap') sitemaps.push(new URL(value, origin));
      else if (value.startsWith('/') && !/[*$]/.test(value)) paths.push(new URL(value, origin));
    } catch {
      // Not a URL: skipped.
    }
  }
  return { paths: paths.slice(0, MAX_SEEDS), sitemaps: sitemaps.slice(0, 10) };
}

export function sitemapLocations(text: string, origin: URL): URL[] {
  const urls: URL[] = [];
  for (const match of text.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    try {
      urls.push(new URL(match[1].replace(/&amp;/g, '&'), origin));
    } catch {
      // Not a URL: skipped.
    }
    if (urls.length >= MAX_SEEDS) break;
  }
  return urls;
}

export function openapiSeeds(text: string, origin: URL): URL[] | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  const paths = (document as { paths?: unknown } | null)?.paths;
  if (paths === null || typeof paths !== 'object') return undefined;
  const servers = (document as { servers?: { url?: unknown }[] }).servers;
  const basePath = typeof servers?.[0]?.url === 'string' ? new URL(servers[0].url, origin).pathname.replace(/\/$/, '') : '';
  return Object.keys(paths)
    .filter((path) => path.startsWith('/') && !path.includes('{'))
    .slice(0, MAX_SEEDS)
    .map((path) => new URL(`${basePath}${path}`, origin));
}

/** Seeds from robots.txt, sitemap.xml and the scope's OpenAPI URL; failures are notes, not errors (seeds only widen the crawl). */
export async function collectSeeds(
  client: OriginClient,
  openapi: string | undefined,
  shapes: readonly NotFoundShape[],
): Promise<{ seeds: URL[]; notes: string[] }> {
  const origin = client.origin;
  const seeds: URL[] = [];
  const notes: string[] = [];
  const fetchText = async (url: URL): Promise<string | undefined> => {
    try {
      const response = await client.request(url, { maxBodyBytes: 2 * 1024 * 1024 });
      if (!isSuccess(response.status) || looksNotFound(response, url.pathname, shapes)) return undefined;
      return response.body.toString('utf8');
    } catch (error) {
      notes.push(`${url.pathname}: ${(error as Error).message}`);
      return undefined;
    }
  };
  const robots = await fetchText(new URL('/robots.txt', origin));
  const fromRobots = robots ? robotsSeeds(robots, origin) : { paths: [], sitemaps: [] };
  seeds.push(...fromRobots.paths);
  const sitemaps = [new URL('/sitemap.xml', origin), ...fromRobots.sitemaps.filter((url) => url.origin === origin.origin)];
  const seenSitemaps = new Set<string>();
  for (let i = 0; i < sitemaps.length && i < 10; i += 1) {
    if (seenSitemaps.has(sitemaps[i].href)) continue;
    seenSitemaps.add(sitemaps[i].href);
    const text = await fetchText(sitemaps[i]);
    if (!text) continue;
    for (const url of sitemapLocations(text, origin)) {
      if (url.origin !== origin.origin) continue;
      if (/sitemapindex/i.test(text.slice(0, 2000)) && i === 0) sitemaps.push(url);
      else seeds.push(url);
    }
  }
  if (openapi) {
    const url = new URL(openapi);
    if (url.origin !== origin.origin) notes.push(`the OpenAPI document ${url.origin} is on another origin: not read`);
    else {
      const text = await fetchText(url);
      const fromOpenapi = text ? openapiSeeds(text, origin) : undefined;
      if (fromOpenapi) seeds.push(...fromOpenapi);
      else notes.push(`the OpenAPI document ${url.pathname} could not be read as JSON with paths`);
    }
  }
  return { seeds: seeds.slice(0, MAX_SEEDS), notes };
}
