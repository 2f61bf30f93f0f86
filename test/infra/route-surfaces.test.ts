import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerOnlyRouteKeys, routes } from '../../functions/api/routes.ts';
import { ENV } from '../../shared/config/environment.ts';
import { routeKeyOf } from '../../shared/http/routes.ts';
import { startTestService, type TestService } from '../helpers/local-service.ts';
import { bundleDirectory, functionResource, synthesizedStack, type Json } from './synthesized-stack.ts';

/**
 * Every surface of the HTTP API comes from the one declaration of each route
 * (functions/api/routes.ts): the API Gateway routes of the stack, the local server, the OpenAPI
 * document (as the local server serves it and as it ships beside the meta bundle). A route in any
 * one of them and not in all the others fails here. Keys are `METHOD /path` without the trailing
 * slash, as API Gateway names routes.
 */
type Surface = 'route table' | 'CDK routes' | 'local server' | 'OpenAPI (local)' | 'OpenAPI (shipped)';

const keysOfDocument = (document: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => routeKeyOf(method.toUpperCase(), path)),
  );

describe('the route declarations and the surfaces built from them', () => {
  const { template } = synthesizedStack('dev');
  let service: TestService;
  const surfaces = new Map<Surface, Set<string>>();

  beforeAll(async () => {
    service = await startTestService();
    surfaces.set('route table', new Set(routes.map((route) => routeKeyOf(route.method, route.path))));
    surfaces.set(
      'CDK routes',
      new Set(
        Object.values<Json>(template.findResources('AWS::ApiGatewayV2::Route'))
          .map((route) => route.Properties.RouteKey as string)
          .filter((key) => key !== '$default'),
      ),
    );
    surfaces.set('OpenAPI (local)', new Set(keysOfDocument((await service.call('/api/openapi.json')).body)));
    surfaces.set(
      'OpenAPI (shipped)',
      new Set(keysOfDocument(JSON.parse(readFileSync(join(bundleDirectory('dev', 'meta'), 'openapi.json'), 'utf8')))),
    );

    surfaces.set('local server', new Set(service.runtime.apiRoutes.map((route) => routeKeyOf(route.method, route.path))));
  }, 120_000);

  afterAll(() => service?.stop());

  it('has every route in every surface and no surface with a route of its own', () => {
    const all = [...new Set([...surfaces.values()].flatMap((keys) => [...keys]))].sort();
    const missing = [...surfaces].flatMap(([surface, keys]) =>
      all.filter((key) => !keys.has(key)).map((key) => `${key} is not in the ${surface}`),
    );

    expect(all.length).toBeGreaterThanOrEqual(routes.length);
    expect(missing).toEqual([]);
  });

  it('reaches a route on the local server for every key, with and without the trailing slash', async () => {
    const unreached: string[] = [];
    for (const key of surfaces.get('route table') ?? []) {
      const [method, path = ''] = key.split(' ');
      const concrete = path.replace(/\{\w+\}/g, 'x');
      for (const variant of [concrete, `${concrete}/`]) {
        const reply = await service.call(variant, { method });
        if (reply.status === 404 && String(reply.body?.error?.message).startsWith('no route')) unreached.push(`${method} ${variant}`);
      }
    }

    expect(unreached).toEqual([]);
  });

  it('tells the authorizer the bearer-only routes of the declarations', () => {
    const variables = functionResource('dev', 'authorizer').Properties.Environment.Variables;

    expect(variables[ENV.bearerOnlyRoutes]).toBe(bearerOnlyRouteKeys().join(','));
    expect(bearerOnlyRouteKeys()).toEqual(['POST /api/session']);
  });
});
