import { createHash } from 'node:crypto';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { fileURLToPath } from 'node:url';
import { ASSET_CACHE_CONTROL, INDEX_CACHE_CONTROL, SECURITY_HEADERS } from '../shared/http/ui-headers.ts';
import { isUiRoute } from '../web/src/ui-routes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WEB_DIR = join(ROOT, 'web');
export const WEB_DIST = join(WEB_DIR, 'dist');
/** Inputs of every build besides its modules: a change to any of these makes web/dist stale. */
const FIXED_INPUTS = [join(WEB_DIR, 'index.html'), join(WEB_DIR, 'vite.config.ts'), join(ROOT, 'package-lock.json')];
/** Written by the build: the repository files the bundle was made of (web/src, shared/, ...). */
const INPUTS_MANIFEST = 'build-inputs.json';

/** Records every source module of the bundle, so staleness follows what the bundle really imports. */
const recordInputs: Plugin = {
  name: 'record-build-inputs',
  generateBundle() {
    const files = [...this.getModuleIds()]
      .filter((id) => isAbsolute(id) && !id.includes('/node_modules/'))
      .map((id) => relative(ROOT, id.split('?')[0]));
    this.emitFile({ type: 'asset', fileName: INPUTS_MANIFEST, source: JSON.stringify(files.sort(), null, 1) });
  },
};

export { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../shared/http/ui-headers.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** Whether web/dist is missing, or older than a module it was built from (or than the config, page or lockfile). */
export async function isUiBuildStale(distDir = WEB_DIST): Promise<boolean> {
  const built = await stat(join(distDir, 'index.html')).catch(() => null);
  const manifest = await readFile(join(distDir, INPUTS_MANIFEST), 'utf8').catch(() => null);
  if (built === null || manifest === null) return true;
  const inputs = [...FIXED_INPUTS, ...(JSON.parse(manifest) as string[]).map((file) => join(ROOT, file))];
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    // A module that moved or vanished means the sources changed shape: build again.
    if (info === null || info.mtimeMs > built.mtimeMs) return true;
  }
  return false;
}

/**
 * Builds web/dist with Vite when it is missing or stale, and returns its path. The build goes to
 * a private directory that is then swapped in, so two processes building at once (parallel test
 * files) never serve a half-written bundle.
 */
export async function ensureUiBuilt(options: { log?: (line: string) => void } = {}): Promise<string> {
  if (!(await isUiBuildStale())) return WEB_DIST;
  options.log?.('building the web UI (web/dist is missing or older than its sources)…');
  const { build } = await import('vite');
  const staging = join(WEB_DIR, `.dist-${process.pid}-${Date.now()}`);
  await build({
    configFile: join(WEB_DIR, 'vite.config.ts'),
    plugins: [recordInputs],
    build: { outDir: staging, emptyOutDir: true },
    logLevel: 'error',
  });
  const old = `${staging}-old`;
  await rename(WEB_DIST, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(staging, WEB_DIST);
  await rm(old, { recursive: true, force: true });
  return WEB_DIST;
}

/**
 * Serves the built UI: hashed /assets/* cached for a year (immutable), index.html never cached
 * (revalidated by ETag) for every UI route (SPA fallback), security headers on everything.
 * Returns false for paths that are not the UI's, so the caller answers them.
 *
 * With `canonicalOrigin` (the address `npm start` prints), a page asked for under another host
 * name (`localhost` for `127.0.0.1`) is redirected there: the page's origin must be the one the
 * local upload URLs and the CSP's `connect-src 'self'` name, or a browser refuses the uploads.
 */
export function makeUiHandler(distDir: string, canonicalOrigin?: () => string) {
  const root = resolve(distDir);
  return async function serveUi(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
    const method = request.method ?? 'GET';
    if ((method !== 'GET' && method !== 'HEAD') || path.startsWith('/api/') || path === '/api') return false;
    let file: string;
    let cacheControl: string;
    const asset = /^\/assets\/([A-Za-z0-9._-]+)$/.exec(path);
    if (asset) {
      file = join(root, 'assets', asset[1]);
      cacheControl = ASSET_CACHE_CONTROL;
    } else if (isUiRoute(path)) {
      const canonical = canonicalOrigin?.();
      if (canonical && request.headers.host !== new URL(canonical).host) {
        // Only the path goes along: the query of a UI route carries nothing, and the fragment (the
        // one-time sign-in token) never reaches the server; browsers keep it across a redirect.
        response.writeHead(308, { ...SECURITY_HEADERS, location: `${canonical}${path}`, 'cache-control': 'no-store' });
        response.end();
        return true;
      }
      file = join(root, 'index.html');
      cacheControl = INDEX_CACHE_CONTROL;
    } else {
      return false;
    }
    const body = await readFile(file).catch(() => null);
    if (body === null) return false;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const headers = {
      ...SECURITY_HEADERS,
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': cacheControl,
      etag,
    };
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, headers);
      response.end();
      return true;
    }
    response.writeHead(200, { ...headers, 'content-length': String(body.length) });
    response.end(method === 'HEAD' ? undefined : body);
    return true;
  };
}
