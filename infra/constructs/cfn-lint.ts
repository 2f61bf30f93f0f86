import type { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Switches cfn-lint rule `rule` off for the resource of `construct` alone (template metadata
 * `cfn-lint.config.ignore_checks`), for a finding that is known and accepted; `reason` says why
 * next to the resource, as cdk-nag's acknowledgements do (docs/cfn-lint.md).
 */
export function acceptCfnLintFinding(construct: IConstruct, rule: string, reason: string): void {
  if (reason.trim() === '') throw new Error(`a cfn-lint suppression of ${rule} needs a reason`);
  const resource = construct.node.defaultChild as CfnResource;
  const existing = (resource.getMetadata('cfn-lint') as { config?: { ignore_checks?: string[] } } | undefined)?.config?.ignore_checks ?? [];
  resource.addMetadata('cfn-lint', { config: { ignore_checks: [...new Set([...existing, rule])] } });
}
