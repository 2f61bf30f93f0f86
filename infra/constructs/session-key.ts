import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { CfnRotationSchedule, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import { ServiceFunction, type ServiceFunctionDefaults } from './service-function.ts';

export interface SessionKeyProps {
  removalPolicy: RemovalPolicy;
  defaults: ServiceFunctionDefaults;
  /** Days between automatic rotations of the key. */
  rotationDays: number;
}

/**
 * The HS256 key that signs and verifies session tokens (DESIGN §3): a generated 64-character
 * string in Secrets Manager, rotated every `rotationDays` by our rotation function. Tokens name
 * their key (`kid`); the authorizer accepts the current and the previous version, so a rotation
 * ends no session early (docs/auth-in-aws.md). Only functions bound here (the authorizer) read it.
 */
export class SessionKey extends Construct {
  readonly secret: Secret;
  readonly rotationFunction: ServiceFunction;
  readonly rotationSchedule: CfnRotationSchedule;

  constructor(scope: Construct, id: string, props: SessionKeyProps) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'HS256 key of the scan service session tokens',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.removalPolicy,
    });

    this.rotationFunction = new ServiceFunction(this, 'RotationFunction', {
      defaults: props.defaults,
      entry: 'functions/rotate-session-key.ts',
      description: 'Rotates the session key secret (Secrets Manager rotation steps)',
      timeout: Duration.seconds(30),
    });
    // The four rotation steps on this secret only. Not Secret.addRotationSchedule: it also grants
    // secretsmanager:GetRandomPassword on "*", and the function makes its key with node:crypto.
    this.rotationFunction.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [
          'secretsmanager:DescribeSecret',
          'secretsmanager:GetSecretValue',
          'secretsmanager:PutSecretValue',
          'secretsmanager:UpdateSecretVersionStage',
        ],
        resources: [this.secret.secretArn],
      }),
    );
    // Secrets Manager may invoke it for this secret only (confused-deputy protection).
    this.rotationFunction.handler.addPermission('SecretsManagerInvoke', {
      principal: new iam.ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceArn: this.secret.secretArn,
    });
    this.rotationSchedule = new CfnRotationSchedule(this, 'RotationSchedule', {
      secretId: this.secret.secretArn,
      rotationLambdaArn: this.rotationFunction.handler.functionArn,
      rotationRules: { scheduleExpression: `rate(${props.rotationDays} days)` },
      // A deploy does not rotate; the schedule does.
      rotateImmediatelyOnUpdate: false,
    });
    this.rotationSchedule.node.addDependency(this.rotationFunction.handler.node.findChild('SecretsManagerInvoke'));
    this.rotationSchedule.node.addDependency(this.rotationFunction.role);
  }

  /** Give `fn` the secret's ARN and permission to read its value (nothing else). */
  bindSessionKey(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.sessionKeySecretArn, this.secret.secretArn);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] }),
    );
  }
}
