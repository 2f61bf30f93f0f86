import { Aws, Validations, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ARTIFACT_TTL_DAYS } from '../../shared/domain/artifact.ts';
import { EXPORT_PREFIX, EXPORT_TTL_DAYS } from '../../shared/domain/export-file.ts';
import { ENV } from '../../shared/config/environment.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';

export interface ArtifactsProps {
  defaults: ServiceFunctionDefaults;
  environmentName: string;
  /** The UI's origins: browsers PUT uploads straight to the bucket from there. */
  allowedOrigins: string[];
  removalPolicy: RemovalPolicy;
}

/**
 * Uploaded DMARC reports and messages (DESIGN §4): a private, encrypted, TLS-only bucket without
 * versioning whose objects expire after 30 days, and the function that checks each new object and
 * marks its artifact ready or rejected. Who may write and read is granted through bindPresigner
 * (the API: presigned uploads, and the SBOMs it answers) and bindReader (dispatch: the scope's
 * artifacts, and the SBOMs scans write), on the objects only.
 */
export class Artifacts extends Construct {
  readonly bucket: Bucket;
  readonly checkFunction: ServiceFunction;
  /**
   * The bucket's name and object ARN as strings built from the fixed name, not references to the
   * bucket: the bucket depends on the invoke permission, so whatever the functions depend on
   * (their environment, their policies) must not depend on the bucket.
   */
  readonly bucketName: string;
  readonly objectsArn: string;
  /** The exports' objects, `_exports/*` (docs/issues.md, "Export"). */
  readonly exportsArn: string;
  /**
   * Where browsers PUT uploads: the bucket's regional virtual-hosted endpoint, the host the SDK's
   * presigned URLs name (`https://<bucket>.s3.<region>.amazonaws.com`). The UI's CSP allows it.
   */
  readonly uploadOrigin: string;

  constructor(scope: Construct, id: string, props: ArtifactsProps) {
    super(scope, id);
    // A fixed name: the notification's invoke permission must name the bucket before it exists.
    const bucketName = `scan-service-${props.environmentName}-artifacts-${Aws.ACCOUNT_ID}-${Aws.REGION}`;
    this.bucketName = bucketName;
    this.objectsArn = `arn:${Aws.PARTITION}:s3:::${bucketName}/*`;
    this.exportsArn = `arn:${Aws.PARTITION}:s3:::${bucketName}/${EXPORT_PREFIX}*`;
    this.uploadOrigin = `https://${bucketName}.s3.${Aws.REGION}.${Aws.URL_SUFFIX}`;
    this.bucket = new Bucket(this, 'Bucket', {
      bucketName,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: false,
      lifecycleRules: [
        { id: 'expire-artifacts', expiration: Duration.days(ARTIFACT_TTL_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Where rules overlap S3 honours the shorter expiration: an export lives a day.
        { id: 'expire-exports', prefix: EXPORT_PREFIX, expiration: Duration.days(EXPORT_TTL_DAYS) },
      ],
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: props.allowedOrigins,
          allowedHeaders: ['content-type', 'content-length'],
          maxAge: 3600,
        },
      ],
      removalPolicy: props.removalPolicy,
    });

    this.checkFunction = new ServiceFunction(this, 'CheckFunction', {
      defaults: props.defaults,
      entry: 'functions/artifact-check.ts',
      description: 'Marks an uploaded artifact ready or rejected (size and kind) when its object is created',
      timeout: Duration.seconds(60),
      // Reads up to the largest artifact (50 MiB) and unpacks a report up to the scanner's bound.
      memorySize: 1024,
    });
    this.checkFunction.setEnvironment(ENV.artifactBucket, bucketName);
    this.checkFunction.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:DeleteObject'], resources: [this.objectsArn] }),
    );

    // The notification is written on the bucket itself (no notifications custom resource and its
    // wildcard role): S3 invokes the check function for every created object.
    this.checkFunction.handler.addPermission('InvokeFromBucket', {
      principal: new iam.ServicePrincipal('s3.amazonaws.com'),
      sourceArn: `arn:${Aws.PARTITION}:s3:::${bucketName}`,
      sourceAccount: Aws.ACCOUNT_ID,
    });
    const cfnBucket = this.bucket.node.defaultChild as CfnBucket;
    cfnBucket.notificationConfiguration = {
      lambdaConfigurations: [{ event: 's3:ObjectCreated:*', function: this.checkFunction.handler.functionArn }],
    };
    const permission = this.checkFunction.handler.node.tryFindChild('InvokeFromBucket');
    if (permission) cfnBucket.node.addDependency(permission);

    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Artifacts are write-once uploads through 15-minute presigned PUT URLs that the scans API issues ' +
        'and logs with tenant and artifact id, read only by dispatch and the check function in their own ' +
        'logged invocations, and expired after 30 days; enable CloudTrail S3 data events when an audit needs object-level logs.',
    });
    this.#acknowledgeObjectWildcard(this.checkFunction);
  }

  /** Objects are created at run time under `<tenant>/<id>`: the bucket's objects are the narrowest resource to grant on. */
  #acknowledgeObjectWildcard(fn: ServiceFunction): void {
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${this.#templateName()}/*]`,
      reason:
        'Artifact objects are created at run time under keys <tenant>/<artifact id>, so no fixed object ARN ' +
        'exists at deploy time; the grant is on the objects of this one bucket only, and the key is ' +
        "always built from the caller's own tenant in code (docs/artifacts.md).",
    });
  }

  /**
   * The API: the bucket name, PutObject on the artifacts (the URL it signs carries just that) and
   * GetObject (GET /api/scans/{id}/sbom/ reads the scan's SBOM, keyed by the caller's tenant).
   */
  bindPresigner(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.artifactBucket, this.bucketName);
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [this.objectsArn] }));
    this.#acknowledgeObjectWildcard(fn);
  }

  /**
   * The CSV export past one buffered answer: a multipart upload (PutObject covers create, part and
   * complete), its abort, and GetObject for the presigned URL it answers, on `_exports/*` only.
   */
  bindExporter(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.artifactBucket, this.bucketName);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject'], resources: [this.exportsArn] }),
    );
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${this.#templateName()}/${EXPORT_PREFIX}*]`,
      reason:
        'Exports are created at run time under _exports/<tenant>/<export id>.csv, so no fixed object ARN exists ' +
        "at deploy time; the grant is on this one prefix of this one bucket, and the key is always built from the caller's own tenant in code.",
    });
  }

  /** The bucket name as cdk-nag prints it in a finding. */
  #templateName(): string {
    return this.bucketName.replace(Aws.ACCOUNT_ID, '<AWS::AccountId>').replace(Aws.REGION, '<AWS::Region>');
  }

  /**
   * Dispatch: the bucket name, GetObject on the artifacts (the scope's, and the previous SBOM a
   * scan compares with) and PutObject (the SBOM a scan keeps, keyed by the job's tenant in code).
   */
  bindReader(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.artifactBucket, this.bucketName);
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [this.objectsArn] }));
    this.#acknowledgeObjectWildcard(fn);
  }
}
