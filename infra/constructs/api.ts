import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
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
import { routes } from '../../shared/http/routes.ts';
import { apiGatewayRoutes } from '../api-routes.ts';

export interface ApiProps {
  apiName: string;
  /** The Lambda behind each `handler` of shared/http/routes.ts; each gets ALLOWED_ORIGINS here. */
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
 * The public HTTP API: exactly the routes of shared/http/routes.ts, each authenticated route
 * behind the Lambda authorizer, a throttled `$default` stage and JSON access logs.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogGroup: LogGroup;

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
        allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PATCH, CorsHttpMethod.DELETE],
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
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrations[route.handler],
        ...(route.authenticated ? {} : { authorizer: none }),
      });
    }
  }

  /** The invoke URL of the `$default` stage (ends with `/`). */
  get url(): string {
    return this.stage.url;
  }
}
