import { catalogue as mailscanCatalogue } from '../../layers/mailscan/src/catalogue.ts';

/**
 * Every rule id the deployment's engines can report, from their catalogues (data, DESIGN §11).
 * An engine that lands adds its catalogue here. The issue listing reads one index partition per
 * rule, so a rule-id prefix is answered by the catalogue rules it names (docs/issues.md).
 */
export const KNOWN_RULE_IDS: readonly string[] = [...new Set(mailscanCatalogue.map((rule) => rule.rule_id))].sort();

/**
 * The rules a `rule_id` filter names: the catalogue rules that start with it, and the filter
 * itself as an exact id (so a rule outside every catalogue is still found by its full id).
 */
export function rulesMatching(prefix: string): string[] {
  return [...new Set([prefix, ...KNOWN_RULE_IDS.filter((ruleId) => ruleId.startsWith(prefix))])];
}
