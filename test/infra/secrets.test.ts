import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { cdkContext, environments, synthesizedStack, type Json } from './synthesized-stack.ts';

/** Every string in a template, with where it is. */
function stringsIn(value: unknown, path = ''): Array<{ path: string; value: string }> {
  if (typeof value === 'string') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsIn(item, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => [
      { path: `${path}.${key}#key`, value: key },
      ...stringsIn(item, `${path}.${key}`),
    ]);
  return [];
}

describe.each(environments)('secrets in the ScanService-%s template (DESIGN §10)', (env) => {
  // The synth all of test/infra shares; made on first use.
  const synth = () => synthesizedStack(env);
  const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
    synth().stack.getLogicalId(construct.node.defaultChild as CfnElement);

  it('creates the operator keys secret under its configured name, holding an empty JSON object', () => {
    const { stack, template } = synth();
    const resources = template.toJSON().Resources;

    expect(resources[logicalIdOf(stack.operatorKeys.secret)].Properties).toMatchObject({
      Name: cdkContext.environments[env].operatorKeysSecretName,
      SecretString: '{}',
    });
    template.hasOutput('OperatorKeysSecretName', { Value: cdkContext.environments[env].operatorKeysSecretName });
  });

  it('holds no secret value: the only literal secret string is the empty operator keys object', () => {
    const secrets = Object.values<Json>(synth().template.findResources('AWS::SecretsManager::Secret'));

    expect(secrets.map((secret) => secret.Properties.SecretString ?? 'none').sort()).toEqual(['none', '{}']);
    expect(secrets.some((secret) => secret.Properties.GenerateSecretString !== undefined)).toBe(true);
  });

  it('never names an operator key anywhere, so no key can sit in an environment variable', () => {
    const named = stringsIn(synth().template.toJSON()).filter(({ value }) => /MAILSCAN_[A-Z0-9_]*_KEY/.test(value));

    expect(named).toEqual([]);
  });

  it('gives functions secret ARNs, never secret values, in their environment', () => {
    const functions = Object.values<Json>(synth().template.findResources('AWS::Lambda::Function'));
    for (const fn of functions) {
      for (const [name, value] of Object.entries(fn.Properties.Environment?.Variables ?? {})) {
        if (/KEY|SECRET|TOKEN|PASSWORD/i.test(name)) {
          // The vault's KMS key (DESIGN §16) is named by its ARN too: a key, not a secret value.
          if (name === 'CREDENTIAL_KEY_ARN') {
            const [logicalId] = (value as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
            expect(synth().template.toJSON().Resources[logicalId].Type).toBe('AWS::KMS::Key');
            continue;
          }
          expect(name).toMatch(/_SECRET_ARN$/);
          expect(value).toEqual({ Ref: expect.any(String) });
        }
      }
    }
  });

  it("lets only each class's dispatch function read the operator keys, by their ARN in OPERATOR_KEYS_SECRET_ARN", () => {
    const { stack, template } = synth();
    const secretRef = { Ref: logicalIdOf(stack.operatorKeys.secret) };
    const dispatch = template.toJSON().Resources[logicalIdOf(stack.functions.dispatch.handler)];
    const readers = Object.entries<Json>(template.findResources('AWS::IAM::Policy')).filter(([, policy]) =>
      policy.Properties.PolicyDocument.Statement.some(
        (statement: Json) => JSON.stringify(statement.Resource) === JSON.stringify(secretRef),
      ),
    );

    expect(dispatch.Properties.Environment.Variables.OPERATOR_KEYS_SECRET_ARN).toEqual(secretRef);
    expect(readers.map(([, policy]) => policy.Properties.Roles[0].Ref)).toEqual([
      logicalIdOf(stack.functions.dispatch.role),
      logicalIdOf(stack.functions.longDispatch!.role),
    ]);
    for (const [, reader] of readers) {
      expect(
        reader.Properties.PolicyDocument.Statement.filter(
          (statement: Json) => JSON.stringify(statement.Resource) === JSON.stringify(secretRef),
        ),
      ).toEqual([{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretRef }]);
    }
  });
});
