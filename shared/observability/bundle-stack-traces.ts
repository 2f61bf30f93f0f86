import type { SourceMap, SourceMapPayload } from 'node:module';

/**
 * Stack frames of a Lambda bundle, mapped to the TypeScript sources when a stack is first read.
 *
 * Node's `--enable-source-maps` does the same mapping, but it reads the bundle's map and measures
 * every line of the bundle when the module loads, on every cold start, for stacks that most
 * instances never print (docs/cold-start.md). Here the map is read and parsed the first time an
 * error's `stack` is formatted, once per instance. Frames outside the bundle (the SDK, Node) and
 * frames in library code the trimmed map does not cover keep their positions; source paths are
 * printed as the map names them, relative to the repository (infra/bundling/trim-source-map.ts):
 * `shared/services/schedule-service.ts:42:7`.
 *
 * Nothing is installed when Node's own mapping is on (`--enable-source-maps`), when something other
 * than Node's default `Error.prepareStackTrace` is set (a test runner, tsx), or outside a bundle
 * (`*.ts` in development).
 * A missing or unreadable map leaves stacks as V8 prints them; formatting a stack never throws.
 */
export function mapBundleStackTraces(bundleUrl: string): boolean {
  if (!bundleUrl.startsWith('file:') || !bundleUrl.endsWith('.mjs')) return false;
  if (process.sourceMapsEnabled || !isNodesDefault(Reflect.get(Error, 'prepareStackTrace'))) return false;
  const origins = lazySourceMap(bundleUrl);
  Error.prepareStackTrace = (error, sites) => {
    try {
      return [errorHeader(error), ...sites.map((site, i) => `    at ${mappedFrame(site, sites[i + 1], bundleUrl, origins)}`)].join('\n');
    } catch {
      return [errorHeader(error), ...sites.map((site) => `    at ${(site as CallSite).toString()}`)].join('\n');
    }
  };
  return true;
}

/** Node (≥ 22) defines Error.prepareStackTrace itself; anything else was set by someone on purpose. */
function isNodesDefault(prepare: unknown): boolean {
  return prepare === undefined || (typeof prepare === 'function' && prepare.name === 'ErrorPrepareStackTrace');
}

/** A V8 call site; its toString() is the frame text V8 prints after `at `. */
type CallSite = NodeJS.CallSite & { toString(): string };

type Origins = () => SourceMap | undefined;

/**
 * The bundle's map, read at the first call. `node:fs` and `node:url` are loaded then too: a
 * function that loads neither otherwise (MetaFunction) would pay for them at every cold start.
 */
function lazySourceMap(bundleUrl: string): Origins {
  let map: SourceMap | null = null;
  let tried = false;
  return () => {
    if (!tried) {
      tried = true;
      try {
        const { readFileSync } = process.getBuiltinModule('node:fs');
        const { fileURLToPath } = process.getBuiltinModule('node:url');
        const { SourceMap } = process.getBuiltinModule('node:module');
        map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(bundleUrl)}.map`, 'utf8')) as SourceMapPayload);
      } catch {
        map = null;
      }
    }
    return map ?? undefined;
  };
}

/** What V8 prints above the frames: `Name: message` as Error.prototype.toString gives it. */
function errorHeader(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return 'Error';
  }
}

interface Origin {
  source: string;
  line: number;
  column: number;
  name?: string;
}

function originOf(site: NodeJS.CallSite, bundleUrl: string, origins: Origins): Origin | undefined {
  if (site.getFileName() !== bundleUrl) return undefined;
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  const map = line && column ? origins() : undefined;
  if (!map || !line || !column) return undefined;
  const entry = map.findEntry(line - 1, column - 1);
  if (!('originalSource' in entry)) return undefined;
  return {
    source: entry.originalSource,
    line: entry.originalLine + 1,
    column: entry.originalColumn + 1,
    // Node sets `name` when the mapping has one; its type declarations leave it out.
    name: (entry as { name?: string }).name,
  };
}

/**
 * One frame as V8 prints it, with the bundle position replaced by the source position and the
 * minified function name by the name its caller used at the call site, when the caller is in the
 * bundle too (as Node's own mapping does; esbuild's maps carry no name where a function starts).
 */
function mappedFrame(site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined, bundleUrl: string, origins: Origins): string {
  const text = (site as CallSite).toString();
  const origin = originOf(site, bundleUrl, origins);
  if (!origin) return text;
  const position = `${bundleUrl}:${site.getLineNumber()}:${site.getColumnNumber()}`;
  const mapped = text.replace(position, `${origin.source}:${origin.line}:${origin.column}`);
  const minified = site.getFunctionName();
  const name = caller ? originOf(caller, bundleUrl, origins)?.name : undefined;
  if (!minified || !name || name === minified) return mapped;
  return mapped.replace(new RegExp(`(^|[ .])${minified.replaceAll('$', '\\$')} \\(`), (_, before: string) => `${before}${name} (`);
}
