import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../src/catalogue.ts';
import { IDENTITIES, keyOf } from '../src/finding-identity.ts';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/mailscan.md', import.meta.url)), 'utf8');

describe('finding identity (one issue per problem)', () => {
  it('names the instance of every catalogue rule, and of nothing else', () => {
    expect(Object.keys(IDENTITIES).sort()).toEqual(catalogue.map((rule) => rule.rule_id).sort());
  });

  it('has a row for every rule in the docs table', () => {
    const from = doc.indexOf('### One issue per problem');
    const table = doc.slice(from, doc.indexOf('\n#', from + 1));
    const named = (rule: string) => {
      const [, family, name] = rule.split('.');
      const short = rule.startsWith('adversary.') ? 'adversary.email.*' : `${family}.${name}`;
      return table.includes(`\`${short}\``) || table.includes(`\`${family}.*\``);
    };
    expect(catalogue.map((rule) => rule.rule_id).filter((rule) => !named(rule))).toEqual([]);
  });

  it('writes a key so that no two instances read alike, whatever their names hold', () => {
    expect(keyOf({ repository: 'acme/app', path: 'a b.py' })).toBe('repository=acme/app path="a b.py"');
    expect(keyOf({ repository: 'acme/app path=x', path: 'y' })).not.toBe(keyOf({ repository: 'acme/app', path: 'x path=y' }));
    expect(keyOf({ message: null, kind: 'gap', instance: undefined })).toBe('message= kind=gap');
  });
});
