import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../layers/mailscan/src/catalogue.ts';
import { FINDINGS_DOC, regenerate } from '../../scripts/findings-doc.ts';

describe('docs/findings.md', () => {
  it('lists every catalogue rule with its severities, surface and origin', () => {
    const whole = readFileSync(new URL('../../docs/findings.md', import.meta.url), 'utf8');
    // mailscan's table; the other engines' catalogues follow it in their own tables.
    const text = whole.slice(whole.indexOf('<!-- rules table'), whole.indexOf('<!-- end of generated rules table -->'));
    const rows = text
      .split('\n')
      .filter((line) => /^\| `[a-z]/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));

    const documented = rows.map(([, id, severity, surface, , , origin]) => ({
      id: id.replaceAll('`', ''),
      severity,
      surface,
      addition: origin === 'addition',
    }));

    expect(documented).toEqual(
      catalogue.map((rule) => ({
        id: rule.rule_id,
        severity: rule.severities.join(' or '),
        surface: rule.surface,
        addition: rule.addition === true,
      })),
    );
  });

  it('is what `npm run docs:findings` generates from the catalogue', () => {
    const text = readFileSync(FINDINGS_DOC, 'utf8');
    expect(regenerate(text)).toBe(text);
  });
});
