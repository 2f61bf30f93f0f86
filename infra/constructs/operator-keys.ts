import { SecretValue, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import type { ServiceFunction } from './service-function.ts';

export interface OperatorKeysProps {
  /** The secret's name, from cdk.json (`operatorKeysSecretName`), so operators know where to put keys. */
  secretName: string;
  removalPolicy: RemovalPolicy;
}

/**
 * The scanner's operator keys (DESIGN §10): one secret per environment holding a JSON object of
 * `MAILSCAN_*_KEY` values (Spamhaus DQS, sender score, threat intel, breach and leak feeds). The
 * stack creates it holding `{}`, never a key; operators put the keys in with
 * `aws secretsmanager put-secret-value` (docs/operations.md). CloudFormation leaves the value
 * alone afterwards, as the template's `{}` does not change. Only the dispatch function reads it,
 * and hands the keys to the scanner's environment only.
 */
export class OperatorKeys extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string, props: OperatorKeysProps) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      secretName: props.secretName,
      description: 'Operator keys of the mailscan scanner: a JSON object of MAILSCAN_*_KEY values (docs/operations.md)',
      // An empty JSON object, not a generated value: without keys the scanner skips the key-gated services.
      secretStringValue: SecretValue.unsafePlainText('{}'),
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The values are API keys issued by third parties (Spamhaus DQS, breach and threat-intel ' +
        'vendors) and can only be rotated in their consoles; a rotation function cannot mint them. ' +
        'Operators rotate a key by putting the new value (docs/operations.md); the dispatch ' +
        'function reads the secret at each cold start.',
    });
  }

  /** Give `fn` the secret's ARN and permission to read its value (nothing else). */
  bindReader(fn: ServiceFunction): void {
    fn.setEnvironment(ENV.operatorKeysSecretArn, this.secret.secretArn);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] }),
    );
  }
}
