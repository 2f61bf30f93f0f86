import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import { makeS3ArtifactStore } from '../../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../../shared/adapters/s3/s3-client.ts';
import { CONTENT_SECURITY_POLICY, PERMISSIONS_POLICY } from '../../shared/http/ui-headers.ts';
import { cdkContext, environments, logicalId, synthesizedStack, type Json } from './synthesized-stack.ts';

/** A template value with the pseudo parameters of one deployment filled in (Ref and Fn::Join only). */
function deployed(value: Json, pseudo: Record<string, string>): string {
  if (typeof value === 'string') return value;
  if (value?.Ref && value.Ref in pseudo) return pseudo[value.Ref];
  if (value?.['Fn::Join']) return (value['Fn::Join'][1] as Json[]).map((part) => deployed(part, pseudo)).join(value['Fn::Join'][0]);
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

// Managed policy ids (AWS documentation: "Use managed cache policies", "origin request policies").
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

describe.each(environments)('ScanService-%s', (env) => {
  let stack: ScanServiceStack;
  let template: Template;
  let resources: Record<string, Json>;
  beforeAll(() => {
    ({ stack, template } = synthesizedStack(env));
    resources = template.toJSON().Resources;
  });

  it('synthesizes without a warning nobody acknowledged (the TLS setting kept for a custom domain is acknowledged with its reason)', () => {
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });

  const distribution = () => resources[logicalId(stack, stack.ui.distribution)].Properties.DistributionConfig;
  const bucketId = () => logicalId(stack, stack.ui.bucket);

  describe('ui', () => {
    it('keeps the bundle in a private, encrypted bucket that refuses plain HTTP', () => {
      expect(resources[bucketId()].Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      const policy = Object.values<Json>(template.findResources('AWS::S3::BucketPolicy')).find(
        (p) => p.Properties.Bucket.Ref === bucketId(),
      )!;
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    });

    it('logs UI bucket requests and CloudFront requests to a private access-log bucket that expires them', () => {
      const logs = logicalId(stack, stack.ui.accessLogs);

      expect(resources[bucketId()].Properties.LoggingConfiguration).toEqual({
        DestinationBucketName: { Ref: logs },
        LogFilePrefix: 'ui-bucket/',
      });
      expect(distribution().Logging).toEqual({ Bucket: { 'Fn::GetAtt': [logs, 'RegionalDomainName'] }, Prefix: 'cloudfront/' });
      expect(resources[logs].Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, Status: 'Enabled' }] },
      });
    });

    it('lets only this distribution read the bucket, through origin access control', () => {
      const oacs = Object.values<Json>(template.findResources('AWS::CloudFront::OriginAccessControl'));
      expect(oacs.map((oac) => oac.Properties.OriginAccessControlConfig)).toEqual([
        expect.objectContaining({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' }),
      ]);
      const policy = Object.values<Json>(template.findResources('AWS::S3::BucketPolicy')).find(
        (p) => p.Properties.Bucket.Ref === bucketId(),
      )!;
      const reads = policy.Properties.PolicyDocument.Statement.filter((s: Json) => s.Effect === 'Allow');
      expect(reads).toEqual([
        expect.objectContaining({
          Action: 's3:GetObject',
          Principal: { Service: 'cloudfront.amazonaws.com' },
          Condition: { StringEquals: { 'AWS:SourceArn': expect.objectContaining({ 'Fn::Join': expect.anything() }) } },
        }),
      ]);
      expect(JSON.stringify(reads[0].Condition)).toContain(logicalId(stack, stack.ui.distribution));
      const s3Origin = distribution().Origins.find((o: Json) => o.S3OriginConfig);
      expect(s3Origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
      expect(s3Origin.OriginAccessControlId).toBeDefined();
    });

    it("serves the UI over HTTPS only (TLS 1.2+), cached by the objects' own Cache-Control, with the SPA fallback", () => {
      const config = distribution();
      expect(config.DefaultRootObject).toBe('index.html');
      expect(config.ViewerCertificate?.MinimumProtocolVersion ?? 'TLSv1.2_2021').toBe('TLSv1.2_2021');
      expect(config.DefaultCacheBehavior).toMatchObject({
        ViewerProtocolPolicy: 'redirect-to-https',
        CachePolicyId: CACHING_OPTIMIZED,
        AllowedMethods: ['GET', 'HEAD'],
        Compress: true,
        FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: expect.anything() }],
      });
      // A distribution-wide error page would turn the API's JSON 404s into index.html.
      expect(config.CustomErrorResponses).toBeUndefined();
    });

    it('routes /api/* to the HTTP API uncached, forwarding every cookie, query string and header but Host', () => {
      const config = distribution();
      const api = config.CacheBehaviors.find((b: Json) => b.PathPattern === '/api/*');
      expect(api).toMatchObject({
        ViewerProtocolPolicy: 'https-only',
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      });
      const origin = config.Origins.find((o: Json) => o.Id === api.TargetOriginId);
      expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
      expect(JSON.stringify(origin.DomainName)).toContain(logicalId(stack, stack.api.httpApi));
      expect(JSON.stringify(origin.DomainName)).toContain('.execute-api.');
      expect(config.CacheBehaviors).toHaveLength(1);
    });

    it("lets the browser PUT uploads to the artifacts bucket: connect-src names the presigned URL's origin, the bucket's CORS admits the UI origins", async () => {
      const pseudo = {
        'AWS::AccountId': '123456789012',
        'AWS::Region': 'eu-west-1',
        'AWS::URLSuffix': 'amazonaws.com',
        'AWS::Partition': 'aws',
      };
      const policy = Object.values<Json>(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0];
      const csp = deployed(
        policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy,
        pseudo,
      );
      const artifactsBucket = resources[logicalId(stack, stack.artifacts.bucket)].Properties;
      // The URL the scans function would hand a browser in that deployment, from the real presigner.
      const client = makeS3Client({
        region: pseudo['AWS::Region'],
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      });
      const store = makeS3ArtifactStore(client, deployed(artifactsBucket.BucketName, pseudo));
      const upload = await store.uploadInstructions(
        { tenant: 'acme', id: 'art_01JZZZZZZZZZZZZZZZZZZZZZZZ', size: 10, contentType: 'application/xml' },
        new Date(),
      );
      client.destroy();

      const connect = csp
        .split('; ')
        .find((directive) => directive.startsWith('connect-src '))!
        .split(' ')
        .slice(1);
      expect(connect).toEqual(["'self'", new URL(upload.url).origin]);
      expect(new URL(upload.url).origin).toBe(`https://scan-service-${env}-artifacts-123456789012-eu-west-1.s3.eu-west-1.amazonaws.com`);
      // Everything else is the npm start policy, word for word.
      expect(csp.replace(` ${new URL(upload.url).origin}`, '')).toBe(CONTENT_SECURITY_POLICY);
      // The browser's preflight: PUT, with the content-type header it sets (content-length is the browser's own).
      expect(artifactsBucket.CorsConfiguration.CorsRules).toEqual([
        expect.objectContaining({
          AllowedMethods: ['PUT'],
          AllowedOrigins: cdkContext.environments[env].allowedOrigins,
          AllowedHeaders: expect.arrayContaining(['content-type']),
        }),
      ]);
      expect(Object.keys(upload.headers).sort()).toEqual(['content-length', 'content-type']);
    });

    it('adds the same CSP and security headers as npm start to the UI and the API', () => {
      const policies = Object.values<Json>(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
      expect(policies).toHaveLength(1);
      const config = policies[0].Properties.ResponseHeadersPolicyConfig;
      expect(config.SecurityHeadersConfig).toMatchObject({
        ContentSecurityPolicy: { ContentSecurityPolicy: expect.anything(), Override: true },
        ContentTypeOptions: { Override: true },
        FrameOptions: { FrameOption: 'DENY', Override: true },
        ReferrerPolicy: { ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true },
        StrictTransportSecurity: { AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true },
      });
      expect(config.CustomHeadersConfig.Items).toEqual([
        { Header: 'Cross-Origin-Opener-Policy', Value: 'same-origin', Override: true },
        { Header: 'Permissions-Policy', Value: PERMISSIONS_POLICY, Override: true },
      ]);
      const id = logicalId(stack, stack.ui.responseHeaders);
      const behaviours = [distribution().DefaultCacheBehavior, ...distribution().CacheBehaviors];
      for (const behaviour of behaviours) expect(behaviour.ResponseHeadersPolicyId).toEqual({ Ref: id });
    });

    it('rewrites UI routes to index.html and leaves assets alone (the deployed function code, run)', () => {
      const fn = Object.values<Json>(template.findResources('AWS::CloudFront::Function'))[0];
      expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
      const sandbox: { handler?: (event: Json) => Json } = {};
      runInNewContext(`${fn.Properties.FunctionCode}\nthis.handler = handler;`, sandbox);
      const uriAfter = (uri: string) => sandbox.handler!({ request: { uri } }).uri;

      for (const route of ['/', '/settings/scheduled-scans', '/scans', '/scans/scan_01ABC', '/findings', '/sign-in'])
        expect(uriAfter(route), route).toBe('/index.html');
      for (const path of ['/assets/index-abc.js', '/assets/index-abc.css', '/index.html', '/robots.txt', '/scans/a/b'])
        expect(uriAfter(path), path).toBe(path);
    });

    it('outputs the UI URL, its bucket and its distribution', () => {
      const outputs = template.toJSON().Outputs;
      expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['UiUrl', 'UiBucketName', 'UiDistributionId']));
    });
  });
});
