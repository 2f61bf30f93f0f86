import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../src/catalogue.ts';
import { FINDINGS_DOC, RULE_IDS_DOC, regenerate, ruleIdsDoc } from '../../../scripts/findings-doc.ts';

describe('docs/findings.md', () => {
  it('lists every mailscan rule with its severities, surface and origin', () => {
    const whole = readFileSync(FINDINGS_DOC, 'utf8');
    const from = whole.indexOf('### mailscan');
    const text = whole.slice(from, whole.indexOf('\n### ', from + 1));
    const rows = text
      .split('\n')
      .filter((line) => /^\| `[a-z]/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));

    const documented = rows.map(([, id, severity, , , , tags]) => ({ id: id.replaceAll('`', ''), severity, tags }));

    expect(documented).toEqual(
      catalogue.map((rule) => ({
        id: rule.rule_id,
        severity: rule.severities.join(' or '),
        tags: [`surface:${rule.surface}`, `origin:${rule.addition ? 'addition' : 'spec'}`, ...rule.tags].join(', '),
      })),
    );
  });

  it('is what `npm run docs:findings` generates from the manifests, as docs/rule-ids.md is', () => {
    const text = readFileSync(FINDINGS_DOC, 'utf8');
    expect(regenerate(text)).toBe(text);
    expect(readFileSync(RULE_IDS_DOC, 'utf8')).toBe(ruleIdsDoc());
  });
});
