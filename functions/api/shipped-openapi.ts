/**
 * The OpenAPI document as the build wrote it beside the Lambda bundle (infra/bundling/write-openapi.ts),
 * with this deployment's version. Building it in the function would bundle every route's schemas
 * and zod's JSON Schema converter into MetaFunction and compile them at every cold start
 * (docs/cold-start.md). `node:fs` is loaded at the first call: MetaFunction loads it for nothing else.
 */
export async function readShippedOpenApi(file: URL, version: string): Promise<Record<string, unknown>> {
  const { readFile } = process.getBuiltinModule('node:fs/promises');
  const document = JSON.parse(await readFile(file, 'utf8')) as { info?: Record<string, unknown> } & Record<string, unknown>;
  return { ...document, info: { ...document.info, version } };
}
