import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import { arnOf, cdkContext, environments, logicalId, synthesizedStack, type Json } from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  let stack: ScanServiceStack;
  let template: Template;
  let bucket: Json;
  beforeAll(() => {
    ({ stack, template } = synthesizedStack(env));
    bucket = template.toJSON().Resources[logicalId(stack, stack.artifacts.bucket)];
  });

  describe('artifacts bucket', () => {
    it('expires exports after a day, and aborts any multipart upload left incomplete after a day', () => {
      expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual(
        expect.arrayContaining([
          { Id: 'expire-exports', Status: 'Enabled', Prefix: '_exports/', ExpirationInDays: 1 },
          expect.objectContaining({ Id: 'expire-artifacts', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      );
      expect(bucket.Properties.LifecycleConfiguration.Rules.find((rule: Json) => rule.Id === 'expire-artifacts').Prefix).toBeUndefined();
    });

    it('is private, encrypted, unversioned, and expires objects after 30 days', () => {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      });
      expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
      expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([
        expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 30 }),
        expect.objectContaining({ ExpirationInDays: 1 }),
      ]);
    });

    it('refuses every request that is not over TLS', () => {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalId(stack, stack.artifacts.bucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('allows cross-origin PUT only, from the UI origins only', () => {
      expect(bucket.Properties.CorsConfiguration.CorsRules).toEqual([
        {
          AllowedMethods: ['PUT'],
          AllowedOrigins: cdkContext.environments[env].allowedOrigins,
          AllowedHeaders: ['content-type', 'content-length'],
          MaxAge: 3600,
        },
      ]);
    });

    it('invokes the check function for every created object, with a permission scoped to the bucket and account', () => {
      expect(bucket.Properties.NotificationConfiguration).toEqual({
        LambdaConfigurations: [{ Event: 's3:ObjectCreated:*', Function: arnOf(stack, stack.artifacts.checkFunction.handler) }],
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 's3.amazonaws.com',
        FunctionName: arnOf(stack, stack.artifacts.checkFunction.handler),
        SourceAccount: { Ref: 'AWS::AccountId' },
      });
      expect(bucket.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/InvokeFromBucket/)]));
      expect(template.findResources('Custom::S3BucketNotifications')).toEqual({});
    });

    it('names the bucket by environment, account and region, and tells the scans, dispatch and check functions that name', () => {
      expect(bucket.Properties.BucketName).toEqual(stack.resolve(stack.artifacts.bucketName));
      for (const fn of [stack.functions.scans, stack.functions.dispatch, stack.functions.artifactCheck]) {
        const resource = template.toJSON().Resources[logicalId(stack, fn.handler)];
        expect(resource.Properties.Environment.Variables.ARTIFACT_BUCKET).toEqual(stack.resolve(stack.artifacts.bucketName));
      }
    });
  });
});
