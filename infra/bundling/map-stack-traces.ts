import { mapBundleStackTraces } from '../../shared/observability/bundle-stack-traces.ts';

// Injected into every Lambda bundle by ServiceFunction (esbuild `inject`), so it runs before the
// function's own modules: stack traces are mapped to the TypeScript sources when first read,
// instead of Node parsing the source map at every cold start (docs/cold-start.md).
mapBundleStackTraces(import.meta.url);
