import { MANIFESTS } from '../../layers/manifests.ts';

/** A catalogue rule as a listing names it. */
export interface KnownRule {
  rule_id: string;
  title: string;
}

/**
 * Every rule the deployment's engines can report, from their manifests' catalogues (data, DESIGN
 * §11, layers/manifests.ts), by id. The issue listing reads one index partition per
 * rule, so a rule-id prefix is answered by the catalogue rules it names (docs/issues.md).
 */
export const KNOWN_RULES: readonly KnownRule[] = [
  ...new Map(
    MANIFESTS.flatMap((manifest) => manifest.catalogue()).map((rule) => [rule.rule_id, { rule_id: rule.rule_id, title: rule.title }]),
  ).values(),
].sort((a, b) => (a.rule_id < b.rule_id ? -1 : 1));

export const KNOWN_RULE_IDS: readonly string[] = KNOWN_RULES.map((rule) => rule.rule_id);

/**
 * The rules a `rule_id` filter names: the filter itself as an exact id (so a rule outside every
 * catalogue is still found by its full id) and the catalogue rules below it, whole dot-separated
 * segments only: `mailscan.spf` (or `mailscan.spf.`) names `mailscan.spf.missing`, while
 * `secret.aws_access_key` does not name `secret.aws_access_key_id`, a different rule.
 */
export function rulesMatching(prefix: string): string[] {
  const below = prefix.endsWith('.') ? prefix : `${prefix}.`;
  return [...new Set([prefix, ...KNOWN_RULE_IDS.filter((ruleId) => ruleId.startsWith(below))])];
}
