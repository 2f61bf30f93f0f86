/**
 * The bounded same-origin crawler (DESIGN §17): breadth first from the target and its seeds
 * (robots.txt, sitemap.xml, an OpenAPI document), following links, GET forms' actions, scripts and
 * stylesheets, and the parent directories of what it finds; GET only, never another origin, never
 * JavaScript. Bounded by max_pages, max_depth, a cap of query variants per path, and the deadline's
 * signal. Every response goes to `onPage`; what it could not analyse is returned, never dropped.
 */
import { parseHtml, isHtml } from './html.ts';
import { RequestFailed, type OriginClient, type WebResponse } from './http-client.ts';
import type { Page } from './page.ts';
import { blockedReason } from './checks/exposure.ts';

export interface CrawlOptions {
  client: OriginClient;
  start: URL;
  seeds: readonly URL[];
  maxPages: number;
  maxDepth: number;
  include?: (path: string) => boolean;
  exclude?: (path: string) => boolean;
  /** Headers sent with every crawl request (the CORS check's probe Origin). */
  headers: Record<string, string>;
  signal: AbortSignal;
  onPage: (page: Page) => void;
  progress?: (event: string, fields: Record<string, unknown>) => void;
}

export interface CrawlResult {
  pages: number;
  /** Same-origin URLs with a query, for the active checks. */
  withQuery: URL[];
  /** Paths of directories seen, for OPTIONS. */
  directories: string[];
  /** Paths (no query) that answered 2xx with something other than HTML, script or style: API-like, for OPTIONS. */
  endpoints: string[];
  /** Redirects to another origin, not followed. */
  offOrigin: { from: string; to: string }[];
  /** Pages that could not be analysed (no response, rate limited, blocked, cut). */
  failures: { path: string; reason: string }[];
  /** Pages whose body was longer than the cap: only its first bytes were analysed. */
  truncated: string[];
  /** URLs still queued when the crawl stopped. */
  unvisited: number;
  stoppedBy?: 'max_pages' | 'deadline';
  referencesCapped: string[];
}

const MAX_QUERY_VARIANTS = 10;
const SKIPPED_EXTENSIONS =
  /\.(png|jpe?g|gif|webp|ico|bmp|svg|woff2?|ttf|otf|eot|mp[34]|webm|avi|mov|pdf|zip|gz|tgz|bz2|xz|7z|rar|exe|dmg|iso|bin|woff)$/i;

export function pathOf(url: URL): string {
  return `${url.pathname}${url.search}`;
}

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  const { client, signal } = options;
  const origin = client.origin.origin;
  const seen = new Set<string>();
  const queryVariants = new Map<string, number>();
  const queue: { url: URL; depth: number }[] = [];
  const maxQueue = options.maxPages * 20;
  const result: CrawlResult = {
    pages: 0,
    withQuery: [],
    directories: [],
    endpoints: [],
    offOrigin: [],
    failures: [],
    truncated: [],
    unvisited: 0,
    referencesCapped: [],
  };
  const directories = new Set<string>();

  function enqueue(raw: URL, depth: number): void {
    const url = new URL(raw);
    url.hash = '';
    if (url.origin !== origin || depth > options.maxDepth) return;
    if (SKIPPED_EXTENSIONS.test(url.pathname)) return;
    const path = url.pathname;
    if (options.include && !options.include(path)) return;
    if (options.exclude?.(path)) return;
    const key = pathOf(url);
    if (seen.has(key) || queue.length >= maxQueue) return;
    if (url.search) {
      const variants = queryVariants.get(path) ?? 0;
      if (variants >= MAX_QUERY_VARIANTS) return;
      queryVariants.set(path, variants + 1);
    }
    seen.add(key);
    queue.push({ url, depth });
    // Parent directories: where listings and OPTIONS answers live.
    const segments = path.split('/').slice(1, -1);
    for (let i = segments.length; i >= 1; i -= 1) {
      const directory = `/${segments.slice(0, i).join('/')}/`;
      if (directories.has(directory)) break;
      directories.add(directory);
      enqueue(new URL(directory, url), depth);
    }
  }

  function handle(url: URL, depth: number, response: WebResponse): void {
    const path = pathOf(url);
    const blocked = blockedReason(response);
    if (blocked) {
      result.failures.push({ path, reason: blocked });
      return;
    }
    result.pages += 1;
    if (url.search) result.withQuery.push(url);
    if (response.truncated) result.truncated.push(path);
    if (response.status >= 300 && response.status < 400 && response.headers.location) {
      let next: URL | undefined;
      try {
        next = new URL(response.headers.location, url);
      } catch {
        next = undefined;
      }
      if (next && next.origin !== origin) result.offOrigin.push({ from: path, to: next.href.slice(0, 300) });
      else if (next) enqueue(next, depth + 1);
    }
    const html = isHtml(response.headers) ? parseHtml(response.body.toString('utf8')) : undefined;
    const type = response.headers['content-type'] ?? '';
    if (
      !html &&
      response.status >= 200 &&
      response.status < 300 &&
      !/javascript|css|text\/plain|image\//i.test(type) &&
      !result.endpoints.includes(url.pathname)
    )
      result.endpoints.push(url.pathname);
    const page: Page = { url, path, response, text: response.body.toString('utf8'), html };
    options.onPage(page);
    if (!html) return;
    if (html.capped) result.referencesCapped.push(path);
    let base = url;
    try {
      if (html.base) base = new URL(html.base, url);
    } catch {
      // A broken <base> is ignored, as browsers do.
    }
    for (const reference of html.references) {
      if (reference.tag === 'img') continue;
      if (reference.tag === 'form' && (reference.attributes.method ?? 'get').toLowerCase() !== 'get') continue;
      if (reference.tag === 'link' && !/stylesheet|alternate|manifest/i.test(reference.attributes.rel ?? '')) continue;
      let target: URL;
      try {
        target = new URL(reference.url || url.href, base);
      } catch {
        continue;
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') continue;
      enqueue(target, depth + 1);
    }
  }

  enqueue(options.start, 0);
  for (const seed of options.seeds) enqueue(seed, 1);

  let inFlight = 0;
  let sleepers: (() => void)[] = [];
  const wakeAll = (): void => {
    const woken = sleepers;
    sleepers = [];
    for (const wake of woken) wake();
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      if (signal.aborted || result.pages + result.failures.length + inFlight >= options.maxPages) return;
      if (queue.length === 0) {
        // Another worker's page may still bring links.
        if (inFlight === 0) return;
        await new Promise<void>((wake) => sleepers.push(wake));
        continue;
      }
      const { url, depth } = queue.shift()!;
      inFlight += 1;
      try {
        const response = await client.request(url, { headers: options.headers });
        handle(url, depth, response);
      } catch (error) {
        const reason = error instanceof RequestFailed && error.code === 'aborted' ? "the scan's deadline passed" : (error as Error).message;
        result.failures.push({ path: pathOf(url), reason });
      } finally {
        inFlight -= 1;
        wakeAll();
      }
      if ((result.pages + result.failures.length) % 25 === 0)
        options.progress?.('web.crawl', { pages: result.pages, queued: queue.length });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  result.unvisited = queue.length;
  if (queue.length > 0) result.stoppedBy = signal.aborted ? 'deadline' : 'max_pages';
  result.directories = [...directories];
  return result;
}
