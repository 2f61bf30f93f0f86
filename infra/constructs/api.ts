import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Function as LambdaFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import type { HandlerName } from '../../shared/http/routes.ts';
import { routes } from '../../functions/api/routes.ts';
import { apiGatewayRoutes } from '../api-routes.ts';

/**
 * Why each route without the authorizer is public (cdk-nag APIG4), by API Gateway route key path
 * (no trailing slash). The stack refuses to build a public route missing from this list.
 */
const PUBLIC_ROUTE_REASONS: Record<string, string> = {
  'GET /api/health':
    'Public by design (DESIGN §3): load balancers and uptime checks call it without a session. It ' +
    'answers a static {status, version} and reads no tenant data.',
  'GET /api/openapi.json':
    'Public by design (DESIGN §3): the OpenAPI document describes the API to clients before they ' +
    'sign in. It is generated from the zod schemas at cold start and reads no tenant data.',
  'DELETE /api/session':
    'Signing out only answers a Set-Cookie that clears the session cookie; it reads and changes ' +
    'nothing on the server, and must work when the session has already expired.',
  'POST /api/session/code':
    "Spends a sign-in link's one-time code for a session cookie: the code is the credential, so no " +
    'session can come before it. In AWS no links are printed (npm start prints them), and the ' +
    'route answers 401 to every code; the body is validated like every route (docs/auth.md).',
};

export interface ApiProps {
  apiName: string;
  /** The Lambda behind each `handler` of functions/api/routes.ts; each gets ALLOWED_ORIGINS here. */
  handlers: Record<HandlerName, LambdaFunction>;
  /** Verifies the session token (cookie or Bearer) and returns tenant, role and sub. */
  authorizerHandler: IFunction;
  /** CORS preflight origins, and the list every handler uses for its CSRF Origin check. */
  allowedOrigins: string[];
  throttle: { rateLimit: number; burstLimit: number };
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/**
 * The public HTTP API: exactly the routes of functions/api/routes.ts, each authenticated route
 * behind the Lambda authorizer, a throttled `$default` stage and JSON access logs.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogGroup: LogGroup;
  /** `$default`: every request that matches no route gets the DESIGN §3 404 body from the meta function. */
  readonly notFoundRoute: HttpRoute;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);

    // Set once, here: the preflight and the handlers' CSRF check can never disagree.
    for (const handler of Object.values(props.handlers)) handler.addEnvironment(ENV.allowedOrigins, props.allowedOrigins.join(','));

    // No identity source and no cache, on purpose (docs/auth-in-aws.md): the token comes from the
    // `session` cookie or the Authorization header, and with an identity source API Gateway
    // would answer a request lacking it with its own 401 instead of our JSON error body.
    const authorizer = new HttpLambdaAuthorizer('SessionAuthorizer', props.authorizerHandler, {
      authorizerName: 'session',
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: props.apiName,
      description: 'Scan service API (DESIGN.md §3)',
      // Secure by default: a route gets the authorizer unless it opts out below.
      defaultAuthorizer: authorizer,
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: props.allowedOrigins,
        allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PUT, CorsHttpMethod.PATCH, CorsHttpMethod.DELETE],
        allowHeaders: ['content-type', 'authorization'],
        exposeHeaders: ['location'],
        allowCredentials: true,
        maxAge: Duration.hours(1),
      },
    });

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            path: '$context.path',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            tenant: '$context.authorizer.tenant',
            // Why our authorizer refused (its `auth_error` context) or why API Gateway could not run it.
            authError: '$context.authorizer.auth_error',
            authorizerError: '$context.authorizer.error',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    const integrations: Record<HandlerName, HttpLambdaIntegration> = {
      schedules: new HttpLambdaIntegration('SchedulesIntegration', props.handlers.schedules),
      scans: new HttpLambdaIntegration('ScansIntegration', props.handlers.scans),
      meta: new HttpLambdaIntegration('MetaIntegration', props.handlers.meta),
    };
    const none = new HttpNoneAuthorizer();
    for (const route of apiGatewayRoutes(routes)) {
      const added = this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrations[route.handler],
        ...(route.authenticated ? {} : { authorizer: none }),
      });
      if (!route.authenticated) {
        const reason = PUBLIC_ROUTE_REASONS[`${route.method} ${route.path}`];
        // A new public route is a security decision: it needs its reason here before it deploys.
        if (reason === undefined) throw new Error(`${route.method} ${route.path} has no authorizer and no reason in PUBLIC_ROUTE_REASONS`);
        for (const httpRoute of added) Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason });
      }
    }

    // Any other method and path: without this route API Gateway answers its own
    // {"message":"Not Found"}; the meta function answers DESIGN §3's 404 error body instead, as the
    // local server does. No authorizer, so an unknown route is a 404 with or without a session.
    this.notFoundRoute = new HttpRoute(this, 'NotFoundRoute', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: integrations.meta,
      authorizer: none,
    });
    Validations.of(this.notFoundRoute).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route only answers 404 not_found for paths that are no route of the API; it ' +
        'reads nothing. Behind the authorizer, an unknown path would answer 401 without a session ' +
        'and 404 with one, which tells a caller nothing more and costs an authorizer call.',
    });
  }

  /** The invoke URL of the `$default` stage (ends with `/`). */
  get url(): string {
    return this.stage.url;
  }
}
