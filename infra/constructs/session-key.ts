import type { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import type { ServiceFunction } from './service-function.ts';

export interface SessionKeyProps {
  removalPolicy: RemovalPolicy;
}

/**
 * The HS256 key that signs and verifies session tokens (DESIGN §3): a generated 64-character
 * string in Secrets Manager. Only functions bound here (the authorizer) may read it.
 */
export class SessionKey extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string, props: SessionKeyProps) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'HS256 key of the scan service session tokens',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.removalPolicy,
    });
  }

  /** Give `fn` the secret's ARN and permission to read its value (nothing else). */
  bindSessionKey(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.sessionKeySecretArn, this.secret.secretArn);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] }),
    );
  }
}
