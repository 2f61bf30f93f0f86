import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sdkRuntime, TESTED_NODE_HTTP_HANDLER } from '../../shared/adapters/aws-sdk-runtime.ts';

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { version: string }>;
};

describe('the AWS SDK the functions run with (docs/aws-sdk-runtime.md)', () => {
  it('names the HTTP handler version of the lock file as the tested one', () => {
    expect(TESTED_NODE_HTTP_HANDLER).toBe(lock.packages['node_modules/@smithy/node-http-handler'].version);
  });

  it("finds the handler an SDK client resolves, and accepts this checkout's", () => {
    const runtime = sdkRuntime('@aws-sdk/client-scheduler');

    expect(runtime).toEqual({
      client: '@aws-sdk/client-scheduler',
      clientVersion: lock.packages['node_modules/@aws-sdk/client-scheduler'].version,
      handlerVersion: TESTED_NODE_HTTP_HANDLER,
      ok: true,
    });
  });

  it('reports a client that cannot be resolved as not the tested one', () => {
    expect(sdkRuntime('@aws-sdk/client-that-does-not-exist')).toMatchObject({ clientVersion: null, handlerVersion: null, ok: false });
  });
});
