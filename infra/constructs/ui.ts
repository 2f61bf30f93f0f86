import { Annotations, Aws, Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { acceptCfnLintFinding } from './cfn-lint.ts';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { contentSecurityPolicy, PERMISSIONS_POLICY } from '../../shared/http/ui-headers.ts';
import { UI_ROUTE_PATTERNS } from '../../web/src/ui-routes.ts';

export interface UiProps {
  /** The HTTP API that `/api/*` goes to, on the same origin as the UI (the session cookie is first-party). */
  httpApi: IHttpApi;
  /** Origins the browser PUTs uploads to (the artifacts bucket's endpoint): added to the CSP's connect-src. */
  uploadOrigins: string[];
  removalPolicy: RemovalPolicy;
}

/**
 * The CloudFront Function behind the UI's SPA fallback: a request for one of the UI's routes
 * gets index.html; everything else (hashed /assets/*) is fetched as is. Built from the same route
 * list as the local server, so both answer the same paths. A distribution-wide error page would
 * also rewrite the API's own 403/404 JSON answers, so the fallback is per behaviour, here.
 */
export function spaFallbackCode(): string {
  const patterns = UI_ROUTE_PATTERNS.map((pattern) => pattern.toString()).join(', ');
  return [
    'var UI_ROUTES = [' + patterns + '];',
    'function handler(event) {',
    '  var request = event.request;',
    '  for (var i = 0; i < UI_ROUTES.length; i++) {',
    "    if (UI_ROUTES[i].test(request.uri)) { request.uri = '/index.html'; break; }",
    '  }',
    '  return request;',
    '}',
  ].join('\n');
}

/**
 * The web UI in AWS (DESIGN §2, §8): a private S3 bucket read only by CloudFront through origin
 * access control, and one distribution that serves the bundle at `/` and routes `/api/*` to the
 * HTTP API uncached, with every cookie, query string and header but Host forwarded. The same
 * security headers as `npm start` are added to every response. Files are uploaded after deploy
 * (docs/deploy.md), so the stack needs no build of web/ and no upload function.
 */
export class Ui extends Construct {
  readonly bucket: Bucket;
  /** S3 server access logs of the UI bucket and CloudFront's access logs (cdk-nag S1, CFR3). */
  readonly accessLogs: Bucket;
  readonly distribution: Distribution;
  readonly responseHeaders: ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: UiProps) {
    super(scope, id);

    // Who fetched what, for an incident: S3 server access logs of the UI bucket and CloudFront's
    // standard logs. CloudFront's standard logging writes with an ACL, so this bucket keeps ACLs
    // (object writer); it is private, encrypted and TLS-only like the other.
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: props.removalPolicy,
    });
    acceptCfnLintFinding(
      this.accessLogs,
      'W3045',
      'CDK grants S3 server access logging through the legacy LogDeliveryWrite ACL on this bucket, and CloudFront ' +
        'standard logging needs ACLs (object writer) anyway; a bucket policy would not replace the ACL here.',
    );
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This is the access-log bucket of the UI bucket and the distribution. Logging a log bucket ' +
        'into itself would log every log delivery, and into another bucket only moves the question; ' +
        'its objects are written by S3 and CloudFront log delivery only and expire after 90 days.',
    });

    this.bucket = new Bucket(this, 'Assets', {
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'ui-bucket/',
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      // Old bundles are only kept for a rollback.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
      removalPolicy: props.removalPolicy,
    });

    this.responseHeaders = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Scan service UI: the CSP and security headers of shared/http/ui-headers.ts',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: contentSecurityPolicy(props.uploadOrigins), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: {
        customHeaders: [
          { header: 'Cross-Origin-Opener-Policy', value: 'same-origin', override: true },
          { header: 'Permissions-Policy', value: PERMISSIONS_POLICY, override: true },
        ],
      },
    });

    const spaFallback = new CloudFrontFunction(this, 'SpaFallback', {
      comment: 'UI routes get index.html (web/src/ui-routes.ts)',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(spaFallbackCode()),
    });

    const apiOrigin = new HttpOrigin(`${props.httpApi.apiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Scan service: web UI and /api',
      defaultRootObject: 'index.html',
      enableLogging: true,
      logBucket: this.accessLogs,
      logFilePrefix: 'cloudfront/',
      httpVersion: HttpVersion.HTTP2_AND_3,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // Honours the objects' Cache-Control: a year for hashed assets, revalidate index.html.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        compress: true,
        responseHeadersPolicy: this.responseHeaders,
        functionAssociations: [{ function: spaFallback, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Every answer is per session and per tenant: never cached, and the cookie, the
          // Authorization and Origin headers and the query string all reach the API.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.responseHeaders,
          compress: true,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'No geo restriction: tenants and their users may be anywhere, and the API behind /api/* ' +
          'authenticates every request; a country block list is not a boundary for a signed-in SaaS.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'No WAF web ACL in the stack: a CloudFront web ACL must be created in us-east-1 while this ' +
          'stack is region-agnostic, and the API already throttles at the stage, authenticates and ' +
          'validates every request. A deployment that wants managed rules attaches one (docs/deploy.md).',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a custom domain the distribution serves the default *.cloudfront.net certificate, ' +
          'for which CloudFront cannot enforce a minimum TLS version. minimumProtocolVersion is set to ' +
          'TLSv1.2_2021 and applies as soon as a custom domain and ACM certificate are configured.',
      },
    );
    // The same fact CFR4 acknowledges, as CDK's own synth warning: kept on purpose so a custom domain gets TLS 1.2.
    Annotations.of(this.distribution).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront:minimumProtocolVersionWithoutCertificate',
      'minimumProtocolVersion is kept so that it applies as soon as a custom domain and certificate are configured (see CFR4 above)',
    );
  }

  /** The UI's origin, e.g. `https://d1234.cloudfront.net`. */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }
}
