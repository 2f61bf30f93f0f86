import type { BuildOptions } from 'esbuild';
import { join } from 'node:path';
import { repositoryRoot } from '../paths.ts';

/**
 * How every Lambda function is bundled: ServiceFunction passes these to NodejsFunction, and the
 * scripts, benches and tests that bundle something "like a function" (the house floor of
 * scripts/lambda-init.ts, the stack-trace fixture) pass them to esbuild, so the two cannot drift.
 */
export const LAMBDA_BUNDLE = {
  target: 'node24',
  mainFields: ['module', 'main'],
  /** The createRequire shim lets CommonJS dependencies that call `require` run inside the ESM bundle. */
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  /**
   * Stack traces point at the TypeScript sources, mapped when a stack is first read rather than by
   * --enable-source-maps at every cold start (docs/cold-start.md).
   */
  inject: [join(repositoryRoot, 'infra/bundling/map-stack-traces.ts')],
  /** The Node.js 24 runtime ships AWS SDK v3; bundling it would only grow the cold start. */
  externalModules: ['@aws-sdk/*'],
};

/** The same settings as esbuild options, for bundling outside CDK. */
export function lambdaEsbuildOptions(): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLE.target,
    mainFields: LAMBDA_BUNDLE.mainFields,
    banner: { js: LAMBDA_BUNDLE.banner },
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: LAMBDA_BUNDLE.sourceMap,
    sourcesContent: LAMBDA_BUNDLE.sourcesContent,
    inject: LAMBDA_BUNDLE.inject,
    external: LAMBDA_BUNDLE.externalModules,
    logLevel: 'error',
  };
}
