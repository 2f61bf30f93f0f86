import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/environment.ts';
import type { ServiceFunction } from './service-function.ts';

export interface CredentialKeyProps {
  removalPolicy: RemovalPolicy;
}

/**
 * The master key of the tenant vault (DESIGN §16): each credential's data key is wrapped with it
 * under the encryption context `{tenant, alias}`, so a ciphertext moved to another tenant's item
 * does not decrypt. The API function that stores credentials may only Encrypt and the dispatch
 * function that hands them to engines may only Decrypt, each only with a context that names
 * exactly `tenant` and `alias` (shared/adapters/kms/kms-key-wrapper.ts).
 */
export class CredentialKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: CredentialKeyProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Tenant credential vault: wraps each credential data key under {tenant, alias} (docs/credentials.md)',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      pendingWindow: Duration.days(30),
    });
  }

  /** `fn` may wrap data keys (kms:Encrypt) with a {tenant, alias} context, nothing else. */
  bindEncrypter(fn: ServiceFunction): void {
    this.bind(fn, 'kms:Encrypt');
  }

  /** `fn` may unwrap data keys (kms:Decrypt) with a {tenant, alias} context, nothing else. */
  bindDecrypter(fn: ServiceFunction): void {
    this.bind(fn, 'kms:Decrypt');
  }

  private bind(fn: ServiceFunction, action: 'kms:Encrypt' | 'kms:Decrypt'): void {
    fn.setEnvironment(ENV.credentialKeyArn, this.key.keyArn);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [action],
        resources: [this.key.keyArn],
        conditions: {
          // Both keys present, and no other: a call without the context, or with another shape, is denied.
          Null: { 'kms:EncryptionContext:tenant': 'false', 'kms:EncryptionContext:alias': 'false' },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['tenant', 'alias'] },
        },
      }),
    );
  }
}
