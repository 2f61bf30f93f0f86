import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The HTTP handler version the suite runs the AWS clients with (package-lock.json; a unit test
 * keeps the two equal). The bundles leave `@aws-sdk/*` to the Lambda runtime (docs/aws-sdk-runtime.md),
 * so the handler that bounds a hung call in production is the runtime's, not this one.
 */
export const TESTED_NODE_HTTP_HANDLER = '4.14.2';

/** What the process would run: the `@smithy/node-http-handler` an SDK client resolves, and whether it is the tested line. */
export interface SdkRuntime {
  client: string;
  clientVersion: string | null;
  handlerVersion: string | null;
  /** Same major as the tested version and not older: requestTimeout with throwOnRequestTimeout behaves as tested. */
  ok: boolean;
}

function versionOf(require: NodeJS.Require, name: string): { version: string; path: string } | null {
  try {
    const path = require.resolve(`${name}/package.json`);
    return { version: (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version, path };
  } catch {
    return null;
  }
}

function atLeast(found: string, tested: string): boolean {
  const [a, b] = [found, tested].map((version) => version.split('.').map((part) => Number.parseInt(part, 10)));
  if (a[0] !== b[0]) return false;
  for (let i = 1; i < 3; i += 1) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

/**
 * Resolves `client` (an `@aws-sdk/client-*` package) the way the bundle will (from `from`, then
 * NODE_PATH, where Lambda puts the runtime's SDK), and the HTTP handler that client resolves.
 */
export function sdkRuntime(client = '@aws-sdk/client-sqs', from: string = import.meta.url): SdkRuntime {
  const found = versionOf(createRequire(from), client);
  const handler = found ? versionOf(createRequire(found.path), '@smithy/node-http-handler') : null;
  return {
    client,
    clientVersion: found?.version ?? null,
    handlerVersion: handler?.version ?? null,
    ok: handler !== null && atLeast(handler.version, TESTED_NODE_HTTP_HANDLER),
  };
}

let checked = false;

/**
 * Once per process (a cold start), says on stderr, as a structured line, when the runtime's HTTP
 * handler is not the tested line: an older one may only warn on requestTimeout and leave a hung
 * call pending (docs/aws-timeouts.md). It warns rather than refuses to start: the socket timeout
 * every client also sets is an older option of the handler, and a function that does not start
 * serves nobody.
 */
export function checkSdkRuntimeOnce(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  if (checked) return;
  checked = true;
  const runtime = sdkRuntime();
  if (runtime.ok) return;
  write(
    JSON.stringify({
      level: 'WARN',
      message: 'aws sdk runtime differs from the tested one',
      tested_node_http_handler: TESTED_NODE_HTTP_HANDLER,
      ...runtime,
    }),
  );
}
