import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { makeMetaHandler } from '../../functions/api/meta-handler.ts';
import type { ApiEvent } from '../../shared/http/api-types.ts';
import { routes } from '../../functions/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { engineViews } from '../../shared/domain/engine-views.ts';
import { silentLogger } from '../fakes/silent-logger.ts';

let builds = 0;
const handler = makeMetaHandler({
  version: '9.9.9',
  runners: new Set(),
  targetPolicy: { allowPrivate: false },
  logger: silentLogger,
  allowedOrigins: [],
  secureCookie: true,
  openApiDocument: async () => {
    builds += 1;
    return buildOpenApiDocument('9.9.9', routes);
  },
  engineViews: async () => engineViews(),
});
const context = {} as Context;

/** What API Gateway sends its `$default` route: a request that matched no route key. */
function unmatched(method: string, path: string): ApiEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    requestContext: {
      requestId: 'req-1',
      routeKey: '$default',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
    },
    isBase64Encoded: false,
  } as unknown as ApiEvent;
}

describe('the $default route (requests that match no route of the API)', () => {
  it("answers the DESIGN §3 404 error body, not API Gateway's own", async () => {
    const result = await handler(unmatched('GET', '/api/nope'), context);

    expect(result.statusCode).toBe(404);
    expect(result.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(JSON.parse(String(result.body))).toEqual({
      error: { code: 'not_found', message: 'no route GET /api/nope', details: [], request_id: 'req-1' },
    });
  });

  it('answers 404 for a known path with a method it does not serve', async () => {
    const result = await handler(unmatched('PUT', '/api/health'), context);

    expect(result.statusCode).toBe(404);
  });

  it('keeps a hostile path from bloating the answer', async () => {
    const result = await handler(unmatched('GET', `/${'a'.repeat(10_000)}`), context);

    expect(result.statusCode).toBe(404);
    expect(String(result.body).length).toBeLessThan(600);
  });
});

describe('GET /api/openapi.json', () => {
  it('serves the document, asked for at the first request for it and kept', async () => {
    const event = { ...unmatched('GET', '/api/openapi.json'), routeKey: 'GET /api/openapi.json' } as ApiEvent;
    expect(builds).toBe(0);

    const first = await handler(event, context);
    const second = await handler(event, context);

    expect(first.statusCode).toBe(200);
    const document = JSON.parse(String(first.body)) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('9.9.9');
    expect(Object.keys(document.paths)).toContain('/api/scans/schedules/');
    expect(second.body).toBe(first.body);
    expect(builds).toBe(1);
  });
});
