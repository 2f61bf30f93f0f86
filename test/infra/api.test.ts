import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { apiGatewayPath, apiGatewayRoutes } from '../../infra/api-routes.ts';
import { routes } from '../../functions/api/routes.ts';
import { pathVariants } from '../../shared/http/routes.ts';
import { arnOf, cdkContext, environments, logicalId, synthesizedStack, type Json } from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const { stack, template } = synthesizedStack(env);

  describe('api', () => {
    function routeKeys(): Map<string, Json> {
      const byKey = new Map<string, Json>();
      for (const route of Object.values<Json>(template.findResources('AWS::ApiGatewayV2::Route')))
        byKey.set(route.Properties.RouteKey, route.Properties);
      return byKey;
    }

    function authorizerId(): string {
      const authorizers = template.findResources('AWS::ApiGatewayV2::Authorizer');
      expect(Object.keys(authorizers)).toHaveLength(1);
      return Object.keys(authorizers)[0];
    }

    /** The function an API route invokes, followed through its integration. */
    function functionBehind(route: Json): string {
      const integrationId = route.Target['Fn::Join'][1][1].Ref;
      const integration = template.toJSON().Resources[integrationId];
      return integration.Properties.IntegrationUri['Fn::GetAtt'][0];
    }

    it('uses a REQUEST authorizer with simple responses, no identity source and no cache', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
        AuthorizerType: 'REQUEST',
        EnableSimpleResponses: true,
        AuthorizerPayloadFormatVersion: '2.0',
        IdentitySource: [],
        AuthorizerResultTtlInSeconds: 0,
        AuthorizerUri: Match.objectLike({
          'Fn::Join': ['', Match.arrayWith([arnOf(stack, stack.functions.authorizer.handler)])],
        }),
      });
    });

    it('serves every route of functions/api/routes.ts with and without its trailing slash', () => {
      const keys = routeKeys();
      const handlerIds = {
        schedules: logicalId(stack, stack.functions.schedules.handler),
        scans: logicalId(stack, stack.functions.scans.handler),
        meta: logicalId(stack, stack.functions.meta.handler),
      };
      for (const route of routes) {
        for (const variant of pathVariants(route.path)) {
          const deployed = keys.get(`${route.method} ${apiGatewayPath(variant)}`);
          expect(deployed, `${route.method} ${variant}`).toBeDefined();
          expect(functionBehind(deployed)).toBe(handlerIds[route.handler]);
        }
      }
      // Plus `$default`, below.
      expect(keys.size).toBe(apiGatewayRoutes(routes).length + 1);
    });

    it('sends every request that matches no route to the meta function, without the authorizer', () => {
      const fallback = routeKeys().get('$default');

      expect(fallback).toBeDefined();
      expect(functionBehind(fallback)).toBe(logicalId(stack, stack.functions.meta.handler));
      expect(fallback.AuthorizationType).toBe('NONE');
    });

    it('puts the authorizer on every authenticated route and none on health, openapi, sign-out and the sign-in code', () => {
      const keys = routeKeys();
      const authorizer = authorizerId();
      for (const route of routes) {
        const deployed = keys.get(`${route.method} ${apiGatewayPath(route.path)}`);
        if (route.authenticated) {
          expect(deployed, route.path).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizer } });
        } else {
          expect(deployed.AuthorizationType, route.path).toBe('NONE');
          expect(deployed.AuthorizerId, route.path).toBeUndefined();
        }
      }
      expect(routes.filter((route) => !route.authenticated).map((route) => `${route.method} ${route.path}`)).toEqual([
        'POST /api/session/code',
        'DELETE /api/session',
        'GET /api/health',
        'GET /api/openapi.json',
      ]);
    });

    it('never declares a route key ending in a slash, which API Gateway rejects', () => {
      for (const key of routeKeys().keys()) expect(key).not.toMatch(/.\/$/);
    });

    it('throttles the $default stage and writes JSON access logs', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: {
          ThrottlingRateLimit: settings.api.throttleRateLimit,
          ThrottlingBurstLimit: settings.api.throttleBurstLimit,
        },
        AccessLogSettings: Match.objectLike({ Format: Match.stringLikeRegexp('"routeKey":"\\$context.routeKey"') }),
      });
    });

    it('allows CORS preflights only from the configured origins, with credentials', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
        CorsConfiguration: Match.objectLike({ AllowOrigins: settings.allowedOrigins, AllowCredentials: true }),
      });
    });
  });
});
